/**
 * Assemble the evaluation bundle from the runner's outcome and files. Pure:
 * everything it needs is passed in. Run-level problems (non-zero exit, crash,
 * missing files) go inside the bundle — `exit_code`, `errors`,
 * `metrics.failure_modes` — and decide its `status`: only `ok` is a score.
 * Any other status (infrastructure `error`, `runner_failed`, `timed_out`)
 * comes with `status_reason`, and the green agent ends the task `failed`
 * with that reason (AgentBeats records results only from `completed` tasks,
 * which is what we want for a run that measured nothing).
 */
import { constants as osConstants } from "node:os";
import type { RunnerOutcome } from "../process/outcome.js";
import type { ArtifactPaths, RunFiles } from "./run-files.js";
import { BUNDLE_SPEC_URL } from "./validate.js";

/** Per-item error records kept in a bundle at most (the rest are counted). */
export const MAX_ITEM_ERRORS = 500;

export interface BundleError {
  package_id: string | null;
  error: string;
  timed_out: boolean | null;
  elapsed_seconds: number | null;
  plan_attempts: number | null;
  sim_attempts: number | null;
  score: Record<string, unknown>;
}

export interface EvaluationBundle {
  schema_version: 1;
  spec_url: typeof BUNDLE_SPEC_URL;
  benchmark: string;
  run_id: string;
  exit_code: number;
  status: BundleStatus;
  /** Why the status is not `ok` (null when ok). */
  status_reason: string | null;
  /** Sandbox isolation the run had (from results.json), null when unknown. */
  isolation: { backend: string; level: string; warnings: string[] } | null;
  participants: Record<string, string>;
  timings: { started_at_unix_seconds: number; finished_at_unix_seconds: number; elapsed_seconds: number };
  config: Record<string, unknown>;
  metrics: Record<string, unknown> & { failure_modes: Record<string, number> };
  errors: BundleError[];
  artifacts: ArtifactPaths;
  runner: {
    signal: string | null;
    timed_out: boolean;
    canceled: boolean;
    forcefully_terminated: boolean;
    spawn_error: string | null;
  };
  runner_output_tail: string[];
}

/** `ok`: a score. `error`: infrastructure failed (results.json says why). `runner_failed`: crash/non-zero exit. `timed_out`: the assessment time limit. */
export type BundleStatus = "ok" | "error" | "runner_failed" | "timed_out";

export interface BundleInput {
  benchmark: string;
  runId: string;
  config: Record<string, unknown>;
  participants: Record<string, string>;
  outcome: RunnerOutcome;
  artifacts: ArtifactPaths;
  files: RunFiles;
  /** `aggregate` of the runner's run_finished event, when it sent one. */
  eventAggregate?: Record<string, unknown> | undefined;
}

function isObject(v: unknown): v is Record<string, unknown> {
  return typeof v === "object" && v !== null && !Array.isArray(v);
}

function num(v: unknown): number | null {
  return typeof v === "number" && Number.isFinite(v) && v >= 0 ? v : null;
}

function int(v: unknown): number | null {
  return typeof v === "number" && Number.isInteger(v) ? v : null;
}

/** Exit status as a shell reports it: the code, 128+n for signal n, 127 when it never started. */
export function shellExitCode(o: RunnerOutcome): number {
  if (o.spawnError) return 127;
  if (o.exitCode !== null) return Math.min(255, Math.max(0, o.exitCode));
  if (o.signal) return 128 + (osConstants.signals[o.signal] ?? 0);
  return 1;
}

/** The item rows of a results document: smi `packages`, or our `rows`/`items`/`results`. */
function resultRows(doc: unknown): Record<string, unknown>[] {
  if (!isObject(doc)) return [];
  for (const key of ["packages", "rows", "items", "results"]) {
    const rows = doc[key];
    if (Array.isArray(rows)) return rows.filter(isObject);
  }
  return [];
}

/** The aggregate metrics: the event's, else the results file's; smi's schema_version 2 aggregate as is. */
function aggregateOf(input: BundleInput): Record<string, unknown> {
  const doc = input.files.results;
  const fromFile = isObject(doc) && isObject(doc["aggregate"]) ? doc["aggregate"] : undefined;
  const base = { ...(input.eventAggregate ?? fromFile ?? {}) };
  if (isObject(doc) && doc["schema_version"] === 2 && Array.isArray(doc["packages"])) {
    base["results_schema_version"] = 2;
    base["samples"] ??= doc["packages"].length;
  }
  return base;
}

function itemError(row: Record<string, unknown>): BundleError | null {
  const error = row["error"];
  const timedOut = row["timed_out"] === true || row["status"] === "timeout";
  const hasError = (typeof error === "string" && error.length > 0) || timedOut || row["status"] === "error";
  if (!hasError) return null;
  const id = row["package_id"] ?? row["id"] ?? row["instance_id"] ?? row["task_id"];
  return {
    package_id: typeof id === "string" ? id : null,
    error: typeof error === "string" && error.length > 0 ? error : timedOut ? "timed out" : "error",
    timed_out: typeof row["timed_out"] === "boolean" ? row["timed_out"] : timedOut,
    elapsed_seconds: num(row["elapsed_seconds"]),
    plan_attempts: int(row["plan_attempts"]),
    sim_attempts: int(row["sim_attempts"]),
    score: isObject(row["score"]) ? row["score"] : {},
  };
}

/** Failure category of an item row (the runner's `failure_mode` when valid). */
function itemFailureMode(row: Record<string, unknown>, err: BundleError): string {
  const given = row["failure_mode"];
  if (
    typeof given === "string" &&
    /^(infrastructure_[a-z0-9_]+|model_[a-z0-9_]+|timeout|other_[a-z0-9_]+)$/.test(given)
  ) {
    return given;
  }
  return err.timed_out ? "timeout" : "other_error";
}

/** The results file's own verdict (run-verdict.ts), when it has one. */
function resultsVerdict(doc: unknown): { status: string; reason: string | null } | null {
  if (!isObject(doc) || typeof doc["status"] !== "string") return null;
  const err = doc["error"];
  const reason =
    isObject(err) && typeof err["message"] === "string"
      ? `${err["message"]}${typeof err["code"] === "string" ? ` [${err["code"]}]` : ""}`
      : null;
  return { status: doc["status"], reason };
}

function isolationOf(doc: unknown): EvaluationBundle["isolation"] {
  const iso = isObject(doc) ? doc["isolation"] : undefined;
  if (!isObject(iso) || typeof iso["backend"] !== "string" || typeof iso["level"] !== "string") return null;
  const warnings = Array.isArray(iso["warnings"])
    ? iso["warnings"].filter((w): w is string => typeof w === "string")
    : [];
  return { backend: iso["backend"], level: iso["level"], warnings };
}

/** Last non-empty output line (the runner's own error message, usually). */
function lastLine(tail: readonly string[]): string | null {
  for (let i = tail.length - 1; i >= 0; i--) {
    const line = tail[i]?.trim();
    if (line) return line.length > 500 ? `${line.slice(0, 500)}…` : line;
  }
  return null;
}

/** Status and reason: the runner process first (it may have died), then the results file's verdict. */
function statusOf(
  input: BundleInput,
  exitCode: number,
  errors: readonly BundleError[],
): { status: BundleStatus; reason: string | null } {
  const o = input.outcome;
  const verdict = resultsVerdict(input.files.results);
  if (o.timedOut)
    return {
      status: "timed_out",
      reason: `runner exceeded the assessment time limit after ${(o.durationMs / 1000).toFixed(1)} s and was stopped`,
    };
  if (o.spawnError) return { status: "runner_failed", reason: `runner could not start: ${o.spawnError}` };
  if (verdict?.status === "error")
    return { status: "error", reason: verdict.reason ?? "the runner reported status error" };
  if (exitCode !== 0) {
    const last = lastLine(o.outputTail);
    return {
      status: "runner_failed",
      reason: `${errors[0]?.error ?? `runner exited with code ${exitCode}`}${last ? `: ${last}` : ""}`,
    };
  }
  const fileProblem = errors.find((e) => e.package_id === null);
  if (fileProblem) return { status: "error", reason: fileProblem.error };
  return { status: "ok", reason: null };
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

export function buildBundle(input: BundleInput): EvaluationBundle {
  const o = input.outcome;
  const elapsed = Math.max(0, o.durationMs / 1000);
  const errors: BundleError[] = [];
  const modes: Record<string, number> = {};
  const count = (mode: string) => {
    modes[mode] = (modes[mode] ?? 0) + 1;
  };

  if (o.spawnError) {
    errors.push(runError(`runner could not start: ${o.spawnError}`, false, elapsed));
    count("infrastructure_runner_not_started");
  } else if (o.timedOut) {
    errors.push(runError(`runner exceeded its time limit after ${elapsed.toFixed(1)} s`, true, elapsed));
    count("timeout");
  } else if (o.signal) {
    errors.push(runError(`runner killed by ${o.signal}`, false, elapsed));
    count("infrastructure_runner_killed");
  } else if (o.exitCode !== 0) {
    errors.push(runError(`runner exited with code ${o.exitCode ?? "unknown"}`, false, elapsed));
    count("infrastructure_runner_exit_nonzero");
  }
  for (const key of input.files.missing) {
    errors.push(runError(`${key} missing: ${input.artifacts[key]} was not written`, null, null));
    count("infrastructure_missing_artifact");
  }
  if (input.files.resultsError) {
    errors.push(runError(input.files.resultsError, null, null));
    count("infrastructure_results_unreadable");
  }

  const aggregate = aggregateOf(input);
  const runnerModes = isObject(aggregate["failure_modes"]) ? aggregate["failure_modes"] : undefined;
  let dropped = 0;
  for (const row of resultRows(input.files.results)) {
    const err = itemError(row);
    if (!err) continue;
    if (!runnerModes) count(itemFailureMode(row, err));
    if (errors.length < MAX_ITEM_ERRORS) errors.push(err);
    else dropped++;
  }
  if (runnerModes) {
    for (const [k, v] of Object.entries(runnerModes)) {
      if (
        typeof v === "number" &&
        Number.isInteger(v) &&
        v >= 0 &&
        /^(infrastructure_|model_|other_)[a-z0-9_]+$|^timeout$/.test(k)
      ) {
        modes[k] = (modes[k] ?? 0) + v;
      }
    }
  }
  const metrics: EvaluationBundle["metrics"] = { ...aggregate, failure_modes: modes };
  if (dropped > 0) metrics["errors_not_listed"] = dropped;

  const exitCode = shellExitCode(o);
  const { status, reason } = statusOf(input, exitCode, errors);
  return {
    schema_version: 1,
    spec_url: BUNDLE_SPEC_URL,
    benchmark: input.benchmark,
    run_id: input.runId,
    exit_code: exitCode,
    status,
    status_reason: reason,
    isolation: isolationOf(input.files.results),
    participants: input.participants,
    timings: {
      started_at_unix_seconds: Math.floor(o.startedAtMs / 1000),
      finished_at_unix_seconds: Math.floor(o.finishedAtMs / 1000),
      elapsed_seconds: elapsed,
    },
    config: input.config,
    metrics,
    errors,
    artifacts: input.artifacts,
    runner: {
      signal: o.signal,
      timed_out: o.timedOut,
      canceled: o.isCanceled,
      forcefully_terminated: o.isForcefullyTerminated,
      spawn_error: o.spawnError,
    },
    runner_output_tail: o.outputTail.slice(-200),
  };
}

/** One line for humans: "humaneval run r1: exit 0, 10 s, accuracy=0.5, 0 errors". */
export function bundleSummary(b: EvaluationBundle): string {
  const shown = Object.entries(b.metrics)
    .filter(([k, v]) => k !== "failure_modes" && (typeof v === "number" || typeof v === "string"))
    .slice(0, 6)
    .map(([k, v]) => `${k}=${typeof v === "number" && !Number.isInteger(v) ? v.toFixed(4) : String(v)}`);
  if (b.status !== "ok") {
    return `${b.benchmark} run ${b.run_id}: status ${b.status}, no score: ${b.status_reason ?? "unknown reason"} (exit ${b.exit_code}, ${b.timings.elapsed_seconds.toFixed(1)} s)`;
  }
  return (
    `${b.benchmark} run ${b.run_id}: exit ${b.exit_code}, ${b.timings.elapsed_seconds.toFixed(1)} s` +
    (shown.length ? `, ${shown.join(", ")}` : "") +
    `, ${b.errors.length} error(s)`
  );
}
