/**
 * SWE-bench in an environment of the run's sandbox (the `environments`
 * capability, src/sandbox/environment.ts; the docker backend opens one
 * container per environment): one instance graded in its own image
 * (image-name.ts), in a fresh environment with the step scripts and the
 * patches in PATCH_DIR, each step its own command whose output and exit
 * status the harness reads on its own (so the test step's output can never
 * pass for a harness step's): the harness
 * takes the test-run inventory of the base commit with test_patch applied
 * and undoes test_patch (inventory.ts), applies the model patch the named
 * release's way, resets the test files and applies test_patch
 * (eval-script.ts), takes the inventory again (what differs is flagged,
 * ../test-inventory.ts), runs only the test command as
 * the test process, and hands its raw output and exit status to the grading
 * shared with the host path (../verdict.ts): nonce drawn after the run,
 * harness-assembled log, official rules.
 */
import { join } from "node:path";
import type { EvaluateContext } from "../../../runner/benchmark.js";
import { writeFileAtomic } from "../../../util/atomic-write.js";
import { errorMessage } from "../../../util/errors.js";
import {
  environmentsOf,
  type Environment,
  type EnvironmentExecOutcome,
  type EnvironmentSpec,
} from "../../../sandbox/environment.js";
import type { SwebenchInstance } from "../instance.js";
import type { Framework } from "../log-parsers.js";
import { evalPlan, modifiedFiles, testFilesOf, testSpecFor, versionSpecFor } from "../test-spec.js";
import { gitDirPathIn } from "../patch-paths.js";
import { patchTargets } from "../test-config.js";
import {
  diffInventories,
  namedFlags,
  symlinkModes,
  touchedPaths,
  uniqueFlags,
  type Inventory,
  type TestConfigFlag,
} from "../test-inventory.js";
import { probeArgs, runnerProbeTimeoutMs } from "../local-inventory.js";
import { containerInventory, inventoryFiles, inventoryMarks, type InventoryPlan, type ProbeStop } from "./inventory.js";
import { ruleSet, type RuleSet } from "../rules.js";
import { gradeTestRun, type Verdict } from "../verdict.js";
import { imageFor } from "./image-name.js";
import { applyScript, appliedWith, PATCH_DIR, PREPARE_EXIT, testPatchScript, testScript } from "./eval-script.js";

/** Limit of a harness step in the environment (patch application, file reads), ms: git on a large repository. */
export const HARNESS_STEP_TIMEOUT_MS = 300_000;
/** Bytes of a step's output kept (the test output of a large suite runs to megabytes). */
export const MAX_EVAL_LOG_BYTES = 16 * 1024 * 1024;
/** Who asks the sandbox for environments (named in a refusal). */
const CALLER = "swebench";

type StepOutcome = EnvironmentExecOutcome;

/** Where the repository is in the official images. */
const TESTBED = "/testbed";

/** How an instance's tests run in its image. */
export interface ContainerPlan {
  baseCommit: string;
  resetFiles: string[];
  newFiles: string[];
  evalCommands: readonly string[];
  testCommand: string;
  env: Readonly<Record<string, string>>;
  framework: Framework;
}

/**
 * The official plan (test-spec.ts evalPlan) for an instance of the official
 * table; for other repositories (the embedded sample set, your own) the
 * host path's pytest command and environment, with the same reset rules.
 */
export function containerPlan(inst: SwebenchInstance): ContainerPlan {
  if (versionSpecFor(inst) !== null) {
    const p = evalPlan(inst);
    return {
      baseCommit: p.baseCommit,
      resetFiles: p.resetFiles,
      newFiles: p.newFiles,
      evalCommands: p.evalCommands,
      testCommand: p.testCommand,
      env: {},
      framework: p.framework,
    };
  }
  const spec = testSpecFor(inst);
  const reset = modifiedFiles(inst.test_patch);
  return {
    baseCommit: inst.base_commit,
    resetFiles: reset,
    newFiles: testFilesOf(inst).filter((f) => !reset.includes(f)),
    evalCommands: [],
    testCommand: spec.command,
    env: spec.env,
    framework: spec.framework,
  };
}

/** What the caller knows of the patch. */
export interface PatchSource {
  modelName: string;
  submitted: boolean;
}

/** Verdict fields every outcome of this path carries, whatever it is. */
type VerdictBase = Pick<Verdict, "modelName" | "submitted" | "touchesTestConfig">;

/** The report of a patch that was not applied (or whose grading never got to the tests). */
function notApplied(): Verdict["report"] {
  return { patch_is_None: false, patch_exists: true, patch_successfully_applied: false, resolved: false };
}

/** The model patch does not apply: the model's failure. */
function refusedVerdict(base: VerdictBase): Verdict {
  return {
    ...base,
    status: "PATCH_APPLY_FAILED",
    report: notApplied(),
    error: "patch does not apply",
    failureMode: "model_patch_does_not_apply",
    applyStrategy: null,
  };
}

/** A failure of our making: an error, never a score. */
function infraVerdict(base: VerdictBase, error: string, failureMode: string, errorCode?: string): Verdict {
  return {
    ...base,
    status: "ERROR",
    report: notApplied(),
    error,
    failureMode,
    ...(errorCode ? { errorCode } : {}),
  };
}

/** The files the container starts with in PATCH_DIR: the three step scripts and both patches (newline-terminated). */
function containerFiles(
  inst: SwebenchInstance,
  patch: string,
  plan: ContainerPlan,
  rules: RuleSet,
  inventory: { plan: InventoryPlan; marks: readonly [string, string]; runnerMs: number },
): Record<string, string> {
  return {
    ...inventoryFiles(inventory.plan, TESTBED, inventory.marks, inventory.runnerMs),
    "apply.sh": applyScript({ patchTargets: patchTargets(patch), repoDir: TESTBED, plan: rules.apply }),
    "test-patch.sh": testPatchScript({
      baseCommit: plan.baseCommit,
      resetFiles: plan.resetFiles,
      newFiles: plan.newFiles,
      repoDir: TESTBED,
    }),
    "test.sh": testScript({
      evalCommands: plan.evalCommands,
      testCommand: plan.testCommand,
      testEnv: plan.env,
      repoDir: TESTBED,
    }),
    "model.patch": patch.endsWith("\n") ? patch : patch + "\n",
    "test.patch": inst.test_patch.endsWith("\n") ? inst.test_patch : inst.test_patch + "\n",
  };
}

/** One instance's grading in its opened environment. */
interface ContainerRun {
  container: Environment;
  image: string;
  inst: SwebenchInstance;
  patch: string;
  plan: ContainerPlan;
  source: PatchSource;
  ctx: EvaluateContext;
  artifacts: string;
  base: VerdictBase;
  inventoryPlan: InventoryPlan;
  /** The runner probe's marks (before, after). */
  marks: readonly [string, string];
}

/** A harness step's failure of our making (cancellation, the backend, step limit, no test bed), or null. */
function stepFailed(r: ContainerRun, step: StepOutcome, what: string): Verdict | null {
  const infra = (error: string, failureMode: string): Verdict => infraVerdict(r.base, error, failureMode);
  if (step.isCanceled || r.ctx.signal.aborted) return infra(`cancelled while ${what}`, "infrastructure_cancelled");
  if (step.infraError) return infra(step.infraError, "infrastructure_sandbox");
  if (step.timedOut)
    return infra(
      `${what} took longer than ${HARNESS_STEP_TIMEOUT_MS / 1000} s in ${r.image}`,
      "infrastructure_sandbox",
    );
  if (step.exitCode === PREPARE_EXIT.NO_TESTBED)
    return infra(
      `${r.image} is not a SWE-bench test bed: no git repository at ${TESTBED}: ${step.output.trim().slice(-300)}`,
      "infrastructure_sandbox",
    );
  return null;
}

/** Run one of PATCH_DIR's scripts as its own command. */
function step(r: ContainerRun, script: string, timeoutMs: number): Promise<StepOutcome> {
  return r.container.exec(["/bin/bash", `${PATCH_DIR}/${script}`], {
    timeoutMs,
    signal: r.ctx.signal,
    maxOutputBytes: MAX_EVAL_LOG_BYTES,
  });
}

/** Apply the model patch with the official fallbacks (apply.log): the strategy that worked, or the verdict. */
async function applyModelPatch(r: ContainerRun): Promise<{ strategy: string } | { verdict: Verdict }> {
  const apply = await step(r, "apply.sh", HARNESS_STEP_TIMEOUT_MS);
  await writeFileAtomic(join(r.artifacts, "apply.log"), apply.output);
  const failed = stepFailed(r, apply, "the model patch was applied");
  if (failed) return { verdict: failed };
  if (apply.exitCode === PREPARE_EXIT.APPLY_FAILED) return { verdict: refusedVerdict(r.base) };
  const strategy = appliedWith(apply.exitCode, ruleSet(r.ctx.options.swebench_rules).apply);
  if (strategy === null)
    return {
      verdict: infraVerdict(
        r.base,
        `the apply step failed in ${r.image} (exit ${apply.exitCode}): ${apply.output.trim().slice(-300)}`,
        "infrastructure_sandbox",
      ),
    };
  return { strategy };
}

/** The runner probe's limit in a container, ms (as on the host, local-inventory.ts). */
function runnerProbeMs(r: ContainerRun): number {
  return runnerProbeTimeoutMs(r.ctx.options.per_task_timeout_seconds * 1000);
}

/** A probe stopped by cancellation, the backend or its limit (the environment is then ended). */
function probeStopped(r: ContainerRun, stop: ProbeStop, before: boolean): Verdict {
  const { step, what } = stop;
  if (step.isCanceled || r.ctx.signal.aborted)
    return infraVerdict(r.base, `cancelled during ${what}`, "infrastructure_cancelled");
  if (step.infraError) return infraVerdict(r.base, step.infraError, "infrastructure_sandbox");
  if (before)
    return infraVerdict(r.base, `${what} did not finish in ${r.image} on the base commit`, "infrastructure_sandbox");
  // After the patch only the patch's code can hang pytest's collection, as it would hang the tests.
  return {
    ...r.base,
    status: "TIMEOUT",
    report: notApplied(),
    error: `${what} timed out: collecting the patched tree's tests hangs`,
    failureMode: "timeout",
    testConfigFlags: [{ kind: "probe_failed", path: null, detail: `${what}: timed out` }],
    touchesTestConfig: ["<probe_failed>"],
  };
}

/**
 * The inventory of the base commit with test_patch applied (what grading would run without the
 * model patch), then test_patch undone exactly, so the model patch meets the image's tree.
 */
async function baselineInContainer(r: ContainerRun): Promise<{ inventory: Inventory } | { verdict: Verdict }> {
  const prep = await step(r, "test-patch.sh", HARNESS_STEP_TIMEOUT_MS);
  const failed = stepFailed(r, prep, "test_patch was applied for the baseline");
  if (failed) return { verdict: failed };
  if (prep.exitCode !== 0) {
    const error = `E_TEST_PATCH: test_patch does not apply in ${r.image} (exit ${prep.exitCode}): ${prep.output.trim().slice(-300)}`;
    return { verdict: infraVerdict(r.base, error, "infrastructure_test_patch", "E_TEST_PATCH") };
  }
  const got = await containerInventory(r.container, r.inventoryPlan, "before", r.marks, runnerProbeMs(r), r.ctx.signal);
  if ("stopped" in got) return { verdict: probeStopped(r, got.stopped, true) };
  const undo = await step(r, "undo-test-patch.sh", HARNESS_STEP_TIMEOUT_MS);
  const undoFailed = stepFailed(r, undo, "test_patch was undone after the baseline");
  if (undoFailed) return { verdict: undoFailed };
  if (undo.exitCode !== 0)
    return {
      verdict: infraVerdict(
        r.base,
        `undoing test_patch failed in ${r.image}: ${undo.output.trim().slice(-300)}`,
        "infrastructure_sandbox",
      ),
    };
  return got;
}

/** Reset the test files and apply test_patch: its output (for the log's preamble), or the verdict. */
async function applyTestPatch(
  r: ContainerRun,
  strategy: string,
  flags: TestConfigFlag[],
): Promise<{ output: string } | { verdict: Verdict }> {
  const prep = await step(r, "test-patch.sh", HARNESS_STEP_TIMEOUT_MS);
  const failed = stepFailed(r, prep, "test_patch was applied");
  const touched = touchedPaths(flags);
  if (failed)
    return { verdict: { ...failed, applyStrategy: strategy, touchesTestConfig: touched, testConfigFlags: flags } };
  if (prep.exitCode !== 0) {
    // The baseline applied test_patch to the base commit in this very environment, so only the model
    // patch can make it fail now (e.g. a file where test_patch creates a directory): the model's
    // failure, never an infrastructure row it could void the run with.
    return {
      verdict: {
        ...r.base,
        status: "RESOLVED_NO",
        report: { ...notApplied(), patch_successfully_applied: true },
        error: `test_patch no longer applies after the model patch (exit ${prep.exitCode}): ${prep.output.trim().slice(-300)}`,
        failureMode: "model_breaks_test_patch",
        applyStrategy: strategy,
        touchesTestConfig: touched,
        testConfigFlags: flags,
      },
    };
  }
  return { output: prep.output };
}

/**
 * Why a failed test run is ours, or null: a failed run is the model's unless the backend itself went
 * away under it (nothing inside an environment can make its engine stop answering). Asked only after a
 * non-zero exit.
 */
async function backendGoneDuring(env: Environment, run: StepOutcome): Promise<string | null> {
  if (run.exitCode === 0 || run.timedOut || run.isCanceled || run.infraError) return null;
  const problem = await env.backendProblem();
  return problem === null ? null : `during the tests, ${problem}`;
}

/** Run the test process and grade it (test_output.txt); `prepOutput` is test_patch's output. */
async function runTests(
  r: ContainerRun,
  strategy: string,
  flags: TestConfigFlag[],
  prepOutput: string,
): Promise<Verdict> {
  const { ctx, plan } = r;
  const timeoutS = ctx.options.per_task_timeout_seconds;
  // The test process: only the test command. It prints no marker and never sees the nonce,
  // which gradeTestRun draws after it has ended.
  const run = await step(r, "test.sh", timeoutS * 1000);
  const engineGone = await backendGoneDuring(r.container, run);
  const { verdict, log } = gradeTestRun({
    inst: r.inst,
    patch: r.patch,
    modelName: r.source.modelName,
    submitted: r.source.submitted,
    applyStrategy: strategy,
    testConfigFlags: flags,
    framework: plan.framework,
    rules: ruleSet(ctx.options.swebench_rules),
    preamble: `+ git apply -v test.patch\n${prepOutput.trim()}\n+ ${plan.testCommand}`,
    testOutput: run.output,
    exitCode: run.exitCode,
    timedOut: run.timedOut,
    canceled: run.isCanceled || ctx.signal.aborted,
    ...(run.infraError ? { infraError: run.infraError } : engineGone ? { infraError: engineGone } : {}),
    strictTests: ctx.options.strict_tests,
    timeoutSeconds: timeoutS,
  });
  await writeFileAtomic(join(r.artifacts, "test_output.txt"), log);
  return verdict;
}

/**
 * The harness steps in order: the baseline inventory, the model patch, test_patch, the inventory
 * after them (flags: what differs, plus what the patch text shows), then the tests.
 */
async function gradeInContainer(r: ContainerRun): Promise<Verdict> {
  const before = await baselineInContainer(r);
  if ("verdict" in before) return before.verdict;
  const applied = await applyModelPatch(r);
  if ("verdict" in applied) return applied.verdict;
  const named = [...namedFlags(r.patch, testFilesOf(r.inst), r.inst.repo), ...symlinkModes(r.patch)];
  const prep = await applyTestPatch(r, applied.strategy, named);
  if ("verdict" in prep) return prep.verdict;
  const after = await containerInventory(
    r.container,
    r.inventoryPlan,
    "after",
    r.marks,
    runnerProbeMs(r),
    r.ctx.signal,
  );
  if ("stopped" in after) return { ...probeStopped(r, after.stopped, false), applyStrategy: applied.strategy };
  const flags = uniqueFlags([...named, ...diffInventories(before.inventory, after.inventory)]);
  if (r.ctx.signal.aborted) return infraVerdict(r.base, "cancelled before the tests ran", "infrastructure_cancelled");
  return runTests(r, applied.strategy, flags, prep.output);
}

/**
 * Grade `patch` (non-empty) for `inst` in its image, in an environment of the run's sandbox (refused with
 * SandboxCapabilityError when it has none). Writes apply.log and test_output.txt into `artifacts`.
 */
export async function evaluateInContainer(
  inst: SwebenchInstance,
  patch: string,
  source: PatchSource,
  ctx: EvaluateContext,
  artifacts: string,
): Promise<Verdict> {
  const base: VerdictBase = { modelName: source.modelName, submitted: source.submitted, touchesTestConfig: [] };
  const forbidden = gitDirPathIn(patch);
  if (forbidden !== null) {
    await writeFileAtomic(
      join(artifacts, "apply.log"),
      `refused: the patch names a path inside .git (${JSON.stringify(forbidden)})\n`,
    );
    return refusedVerdict(base);
  }
  const plan = containerPlan(inst);
  const image = imageFor(inst.instance_id, {
    template: ctx.options.swebench_image_template,
    overrides: ctx.options.swebench_images,
  });
  const inventoryPlan: InventoryPlan = { ...plan, tests: probeArgs(inst) };
  const marks = inventoryMarks();
  const runnerMs = runnerProbeTimeoutMs(ctx.options.per_task_timeout_seconds * 1000);
  const files = containerFiles(inst, patch, plan, ruleSet(ctx.options.swebench_rules), {
    plan: inventoryPlan,
    marks,
    runnerMs,
  });
  const environments = environmentsOf(ctx.sandbox, CALLER);
  if (ctx.signal.aborted)
    return infraVerdict(base, "cancelled before the container started", "infrastructure_cancelled");
  const spec: EnvironmentSpec = { image, files: { dir: PATCH_DIR, entries: files }, owner: ctx.options.run_id };
  let container: Environment;
  try {
    container = await environments.openEnvironment(spec, ctx.signal);
  } catch (err) {
    return infraVerdict(base, `container (${image}): ${errorMessage(err)}`, "infrastructure_sandbox");
  }
  try {
    return await gradeInContainer({
      container,
      image,
      inst,
      patch,
      plan,
      source,
      ctx,
      artifacts,
      base,
      inventoryPlan,
      marks,
    });
  } finally {
    await container.close().catch(() => undefined);
  }
}
