/**
 * From one finished test run to an instance's verdict, shared by the host
 * path (definition.ts) and the per-instance-image path (container/evaluate.ts)
 * so both grade alike: the harness draws the nonce only now, after the test
 * process has ended, assembles the log (markers.ts), grades it as the
 * official harness does (grading.ts under the chosen rules), and maps the
 * outcome to a status and failure mode. What the test process did (crash,
 * kill itself, print fake markers, run out of time) is the model's; what our
 * side did (sandbox/engine failure, cancellation) is an error, never a score.
 */
import { availableParallelism, loadavg } from "node:os";
import type { EpisodeRecord } from "../../interactive/episode-record.js";
import type { SwebenchInstance } from "./instance.js";
import type { Framework } from "./log-parsers.js";
import type { RuleSet } from "./rules.js";
import type { SwebenchStatus } from "./report.js";
import { classifyInfra, instanceReport, type GradeResult, type InstanceReport } from "./grading.js";
import { assembleHarnessLog, newNonce } from "./markers.js";
import { touchedPaths, type TestConfigFlag } from "./test-inventory.js";

/** The outcome of one instance, before it becomes a result row. */
export interface Verdict {
  status: SwebenchStatus;
  report: InstanceReport;
  error: string | null;
  /** Stable code of an infrastructure error (errors.ts), if any. */
  errorCode?: string;
  failureMode?: string;
  applyStrategy?: string | null;
  modelName: string;
  /** A prediction exists for the instance (official `submitted`), even an empty one. */
  submitted: boolean;
  touchesTestConfig: string[];
  /** What the patch changes in how the tests run (test-inventory.ts); empty when nothing or not checked. */
  testConfigFlags?: TestConfigFlag[];
  strictVoided?: boolean;
  /** The tests' interpreter was missing; graded as the named release does (rules.ts). */
  interpreterMissing?: boolean;
  logVoid?: string;
  infraSignature?: { reason: string; environment: boolean };
  /** Interactive runs: the episode's record and its trajectory (relative to the run's out dir). */
  episode?: { record: EpisodeRecord; trajectory: string };
}

/** What the harness knows once the test process has ended. */
export interface TestRun {
  inst: SwebenchInstance;
  /** The applied model patch (non-empty). */
  patch: string;
  modelName: string;
  submitted: boolean;
  applyStrategy: string;
  /** What the patch changes in how the tests run (test-inventory.ts). */
  testConfigFlags: TestConfigFlag[];
  framework: Framework;
  rules: RuleSet;
  /** Harness-side text before the tests (test_patch application, the command); never the test process's. */
  preamble: string;
  /** Everything the test process wrote, stdout and stderr merged. */
  testOutput: string;
  exitCode: number | null;
  timedOut: boolean;
  /** Our side stopped the run (cancellation). */
  canceled: boolean;
  /** Our side failed running the tests (sandbox, engine): an error, not a score. */
  infraError?: string;
  /** `--strict-tests`: a flagged patch is not resolved in the row's status (report.json keeps the official verdict). */
  strictTests: boolean;
  /** The test time limit, s (for the message). */
  timeoutSeconds: number;
}

/** The verdict and the assembled log (for `test_output.txt`). */
export interface GradedRun {
  verdict: Verdict;
  log: string;
}

/** The harness log of a finished run and its official grading under a nonce drawn now. */
function gradeLog(run: TestRun): { log: string; graded: GradeResult } {
  const { inst } = run;
  const nonce = newNonce();
  const log = assembleHarnessLog({
    nonce,
    preamble: run.preamble,
    testOutput: run.testOutput,
    exitCode: run.exitCode,
    timedOut: run.timedOut,
    ...(run.infraError ? { errored: `sandbox: ${run.infraError}` } : {}),
  });
  const graded = instanceReport(
    {
      instance_id: inst.instance_id,
      FAIL_TO_PASS: inst.FAIL_TO_PASS,
      PASS_TO_PASS: inst.PASS_TO_PASS,
      model_patch: run.patch,
      log,
      framework: run.framework,
    },
    { rules: run.rules, nonce },
  );
  return { log, graded };
}

/**
 * This host's load when a test run was stopped at its limit, for the row's error: a timeout is the
 * patch's (unresolved, as officially), and this tells an operator whether the host was overloaded
 * (a load average far above the cores) or the patch slow (docs/benchmarks/swebench.md, "Timeouts").
 */
export function hostLoadNote(): string {
  const [one, five] = loadavg();
  return `host load average ${one!.toFixed(2)} (1 min), ${five!.toFixed(2)} (5 min) on ${availableParallelism()} cores`;
}

/** Grade one finished test run. Call only after the test process has ended: the nonce is drawn here. */
export function gradeTestRun(run: TestRun): GradedRun {
  const { log, graded } = gradeLog(run);
  const entry = graded.report[run.inst.instance_id]!;
  const common = {
    report: entry,
    modelName: run.modelName,
    submitted: run.submitted,
    touchesTestConfig: touchedPaths(run.testConfigFlags),
    testConfigFlags: run.testConfigFlags,
    applyStrategy: run.applyStrategy,
    ...(graded.evaluation?.void ? { logVoid: graded.evaluation.void.kind } : {}),
  };
  const done = (verdict: Verdict): GradedRun => ({ verdict, log });
  if (run.infraError)
    return done({
      ...common,
      status: "ERROR",
      error: `sandbox: ${run.infraError}`,
      failureMode: "infrastructure_sandbox",
    });
  // Our stop, not the patch's: the run was cancelled while the tests ran.
  if (run.canceled)
    return done({
      ...common,
      status: "ERROR",
      error: "cancelled while the tests ran",
      failureMode: "infrastructure_cancelled",
    });
  if (run.timedOut)
    return done({
      ...common,
      status: "TIMEOUT",
      error: `tests timed out after ${run.timeoutSeconds} s (${hostLoadNote()})`,
      failureMode: "timeout",
    });
  const signature = classifyInfra(log);
  const withSig = signature ? { ...common, infraSignature: signature } : common;
  if (graded.resolution === null) {
    // The log is void (no test result, or an exit status the results contradict). The tools were
    // checked before the patch, so this is the patch's doing: unresolved, as the official report says.
    // No exit status at all: the test process was killed from inside (the model's code).
    const killed = run.exitCode === null || run.exitCode >= 128;
    return done({
      ...withSig,
      status: "RESOLVED_NO",
      error: null,
      failureMode: killed ? "model_test_run_killed" : "model_no_test_results",
    });
  }
  if (run.strictTests && run.testConfigFlags.length > 0) {
    // The row's status turns; `resolved` (report.json) stays the official verdict, `resolved_strict` is false.
    return done({
      ...withSig,
      status: "RESOLVED_NO",
      error: null,
      failureMode: "model_touched_test_config",
      strictVoided: true,
    });
  }
  return done({
    ...withSig,
    status: graded.resolution,
    error: null,
    ...(entry.resolved ? {} : { failureMode: "model_tests_failed" }),
  });
}
