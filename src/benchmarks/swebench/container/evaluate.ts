/**
 * SWE-bench with `--sandbox docker`: one instance graded in its own image
 * (image-name.ts), by the official steps (eval-script.ts) in a fresh
 * container (run-in-container.ts), then graded with the grading and log
 * parsers of ../grading.ts and ../log-parsers.ts. Returns the same verdict
 * as the host path in ../definition.ts.
 */
import { join } from "node:path";
import type { EvaluateContext } from "../../../runner/benchmark.js";
import { writeFileAtomic } from "../../../util/atomic-write.js";
import { resolveLimits } from "../../../sandbox/limits.js";
import { engineEnv } from "../../../sandbox/docker/engine.js";
import type { SwebenchInstance } from "../instance.js";
import type { InstanceReport, SwebenchStatus } from "../report.js";
import { testFilesOf, testSpecFor } from "../test-spec.js";
import { LOG_PARSERS, type StatusMap } from "../log-parsers.js";
import { resolutionStatus, testsStatus } from "../grading.js";
import { gitDirPathIn } from "../patch-paths.js";
import { imageFor } from "./image-name.js";
import { evalScript, OFFICIAL_MARKERS, readEvalLog, type EvalMarkers } from "./eval-script.js";
import { runInContainer } from "./run-in-container.js";

export interface ContainerVerdict {
  status: SwebenchStatus;
  report: InstanceReport;
  error: string | null;
  failureMode?: string;
  applyStrategy?: string | null;
  modelName: string;
}

/** How the test run is described to the eval script; the caller may supply the per-version table's command and per-run markers. */
export interface ContainerTestPlan {
  command: string;
  env: Readonly<Record<string, string>>;
  parse: (log: string) => StatusMap;
  markers: EvalMarkers;
}

/** The plan from the current test-spec table and the official markers. */
export function defaultTestPlan(inst: SwebenchInstance): ContainerTestPlan {
  const spec = testSpecFor(inst.repo);
  return { command: spec.command(testFilesOf(inst)), env: spec.env, parse: LOG_PARSERS[spec.framework], markers: OFFICIAL_MARKERS };
}

/** Grade `patch` (non-empty) for `inst` in its image. Writes test_output.txt into `artifacts`. */
export async function evaluateInContainer(
  inst: SwebenchInstance,
  patch: string,
  modelName: string,
  ctx: EvaluateContext,
  artifacts: string,
  plan: ContainerTestPlan = defaultTestPlan(inst),
): Promise<ContainerVerdict> {
  const report: InstanceReport = { patch_is_None: false, patch_exists: true, patch_successfully_applied: false, resolved: false };
  const forbidden = gitDirPathIn(patch);
  if (forbidden !== null) {
    await writeFileAtomic(join(artifacts, "apply.log"), `refused: the patch names a path inside .git (${JSON.stringify(forbidden)})\n`);
    return { status: "PATCH_APPLY_FAILED", report, error: "patch does not apply", failureMode: "model_patch_does_not_apply", applyStrategy: null, modelName };
  }
  const image = imageFor(inst.instance_id, { template: ctx.options.swebench_image_template, overrides: ctx.options.swebench_images });
  const timeoutS = ctx.options.per_task_timeout_seconds ?? 3;
  const script = evalScript({ baseCommit: inst.base_commit, testFiles: testFilesOf(inst), testCommand: plan.command, testEnv: plan.env, markers: plan.markers });
  const run = await runInContainer({
    image, script, modelPatch: patch, testPatch: inst.test_patch, timeoutMs: timeoutS * 1000,
    limits: resolveLimits(undefined), owner: ctx.options.run_id, env: engineEnv(), signal: ctx.signal,
  });
  await writeFileAtomic(join(artifacts, "test_output.txt"), run.log);
  const infra = (error: string, failureMode: string): ContainerVerdict => ({ status: "ERROR", report, error, failureMode, applyStrategy: null, modelName });
  if (run.infraError) return infra(`container (${image}): ${run.infraError}`, "infrastructure_sandbox");
  if (run.isCanceled) return infra("canceled", "infrastructure_canceled");
  const log = readEvalLog(run.log, plan.markers);
  if (log.applyFailed) {
    return { status: "PATCH_APPLY_FAILED", report, error: "patch does not apply", failureMode: "model_patch_does_not_apply", applyStrategy: null, modelName };
  }
  if (log.appliedWith === null) {
    if (run.timedOut) return { status: "TIMEOUT", report, error: `patch application timed out after ${timeoutS} s`, failureMode: "timeout", applyStrategy: null, modelName };
    return infra(`the eval script stopped before applying the patch (exit ${run.exitCode}): ${run.log.trim().slice(-300)}`, "infrastructure_sandbox");
  }
  report.patch_successfully_applied = true;
  const applyStrategy = log.appliedWith;
  if (log.testPatchFailed) return { ...infra("test_patch does not apply in the image", "infrastructure_test_patch"), report, applyStrategy };
  if (!log.started) return { ...infra(`the eval script stopped before the tests (exit ${run.exitCode}): ${run.log.trim().slice(-300)}`, "infrastructure_test_run"), report, applyStrategy };
  // As the official grading: without the end marker no test counts (the test run is the model's code).
  const statuses = log.testOutput === null ? {} : plan.parse(log.testOutput);
  report.tests_status = testsStatus(inst.FAIL_TO_PASS, inst.PASS_TO_PASS, statuses);
  if (run.timedOut) return { status: "TIMEOUT", report, error: `tests timed out after ${timeoutS} s`, failureMode: "timeout", applyStrategy, modelName };
  if (log.testOutput === null) {
    return { status: "RESOLVED_NO", report, error: `the test run ended without its end marker (exit ${run.exitCode}): killed from inside`, failureMode: "model_test_run_killed", applyStrategy, modelName };
  }
  if (Object.keys(statuses).length === 0 && log.testExitCode !== 0) {
    const tail = log.testOutput.trim().split("\n").slice(-3).join(" | ");
    return { ...infra(`no test results (exit ${log.testExitCode}): ${tail}`, "infrastructure_test_run"), report, applyStrategy };
  }
  const resolution = resolutionStatus(report.tests_status);
  report.resolved = resolution === "RESOLVED_FULL";
  return { status: resolution, report, error: null, ...(report.resolved ? {} : { failureMode: "model_tests_failed" }), applyStrategy, modelName };
}

