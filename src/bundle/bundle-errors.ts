/**
 * The bundle's `errors` and `metrics.failure_modes`: run-level problems (the
 * runner process, missing or unusable files) and the failed items of the
 * results file, each counted under a failure category.
 */
import type { RunnerOutcome } from "../process/outcome.js";
import type { ArtifactPaths, RunFiles } from "./run-files.js";
import type { ResultItem } from "./run-results.js";

/** Per-item error records kept in a bundle at most (the rest are counted). */
export const MAX_ITEM_ERRORS = 500;

/** A runner's own failure category: `infrastructure_*`, `model_*`, `other_*` or `timeout`. */
const FAILURE_MODE = /^(infrastructure_[a-z0-9_]+|model_[a-z0-9_]+|timeout|other_[a-z0-9_]+)$/;

/** One entry of the bundle's `errors` (smi_bench's record; `package_id` null for a run-level problem). */
export interface BundleError {
  package_id: string | null;
  error: string;
  timed_out: boolean | null;
  elapsed_seconds: number | null;
  plan_attempts: number | null;
  sim_attempts: number | null;
  score: Record<string, unknown>;
}

/** Errors and the count per failure category, filled in as problems are found. */
export interface ErrorTally {
  errors: BundleError[];
  modes: Record<string, number>;
}

function add(tally: ErrorTally, error: BundleError, mode: string): void {
  tally.errors.push(error);
  tally.modes[mode] = (tally.modes[mode] ?? 0) + 1;
}

function runError(error: string, timedOut: boolean | null, elapsed: number | null): BundleError {
  return {
    package_id: null,
    error,
    timed_out: timedOut,
    elapsed_seconds: elapsed,
    plan_attempts: null,
    sim_attempts: null,
    score: {},
  };
}

/** Run-level problems: how the runner process ended, artifacts it did not write, an unusable results file. */
export function runProblems(outcome: RunnerOutcome, artifacts: ArtifactPaths, files: RunFiles): ErrorTally {
  const tally: ErrorTally = { errors: [], modes: {} };
  const elapsed = Math.max(0, outcome.durationMs / 1000);
  if (outcome.spawnError) {
    add(
      tally,
      runError(`runner could not start: ${outcome.spawnError}`, false, elapsed),
      "infrastructure_runner_not_started",
    );
  } else if (outcome.timedOut) {
    add(tally, runError(`runner exceeded its time limit after ${elapsed.toFixed(1)} s`, true, elapsed), "timeout");
  } else if (outcome.signal) {
    add(tally, runError(`runner killed by ${outcome.signal}`, false, elapsed), "infrastructure_runner_killed");
  } else if (outcome.exitCode !== 0) {
    const error = `runner exited with code ${outcome.exitCode ?? "unknown"}`;
    add(tally, runError(error, false, elapsed), "infrastructure_runner_exit_nonzero");
  }
  for (const key of files.missing) {
    add(
      tally,
      runError(`${key} missing: ${artifacts[key]} was not written`, null, null),
      "infrastructure_missing_artifact",
    );
  }
  if (files.resultsError) add(tally, runError(files.resultsError, null, null), "infrastructure_results_unreadable");
  return tally;
}

/** The error record of a failed item (errored, timed out, or status `error`), null when it did not fail. */
function itemError(item: ResultItem): BundleError | null {
  const timedOut = item.timed_out === true || item.status === "timeout";
  const hasError = (item.error !== null && item.error.length > 0) || timedOut || item.status === "error";
  if (!hasError) return null;
  return {
    package_id: item.id,
    error: item.error !== null && item.error.length > 0 ? item.error : timedOut ? "timed out" : "error",
    timed_out: item.timed_out ?? timedOut,
    elapsed_seconds: item.elapsed_seconds,
    plan_attempts: item.plan_attempts,
    sim_attempts: item.sim_attempts,
    score: item.score,
  };
}

/** Failure category of a failed item: the runner's `failure_mode` when valid, else timeout/other_error. */
function itemFailureMode(item: ResultItem, err: BundleError): string {
  if (item.failure_mode !== null && FAILURE_MODE.test(item.failure_mode)) return item.failure_mode;
  return err.timed_out ? "timeout" : "other_error";
}

/**
 * Add the failed items to `tally` (up to {@link MAX_ITEM_ERRORS} records in
 * all); counted per item unless `countItems` is false (the runner counted its
 * failure modes itself). Returns how many item errors were not listed.
 */
export function addItemErrors(tally: ErrorTally, items: readonly ResultItem[], countItems: boolean): number {
  let dropped = 0;
  for (const item of items) {
    const err = itemError(item);
    if (!err) continue;
    if (countItems) {
      const mode = itemFailureMode(item, err);
      tally.modes[mode] = (tally.modes[mode] ?? 0) + 1;
    }
    if (tally.errors.length < MAX_ITEM_ERRORS) tally.errors.push(err);
    else dropped++;
  }
  return dropped;
}

/** A runner's own failure-mode counts (aggregate.failure_modes) added in, each valid category with a count. */
export function addRunnerModes(tally: ErrorTally, runnerModes: Record<string, unknown>): void {
  for (const [k, v] of Object.entries(runnerModes)) {
    if (
      typeof v === "number" &&
      Number.isInteger(v) &&
      v >= 0 &&
      /^(infrastructure_|model_|other_)[a-z0-9_]+$|^timeout$/.test(k)
    ) {
      tally.modes[k] = (tally.modes[k] ?? 0) + v;
    }
  }
}
