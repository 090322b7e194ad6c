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
import type { RunnerOutcome } from "../process/outcome.js";
import { addItemErrors, addRunnerModes, runProblems, type BundleError } from "./bundle-errors.js";
import { shellExitCode, statusOf, type BundleStatus } from "./bundle-status.js";
import type { ArtifactPaths, RunFiles } from "./run-files.js";
import type { RunResults } from "./run-results.js";
import { BUNDLE_SPEC_URL } from "./validate.js";

export { MAX_ITEM_ERRORS, type BundleError } from "./bundle-errors.js";
export { shellExitCode, type BundleStatus } from "./bundle-status.js";

/** Lines of runner output a bundle keeps (smi_bench keeps 200). */
const OUTPUT_TAIL_LINES = 200;

export interface EvaluationBundle {
  schema_version: 1;
  spec_url: typeof BUNDLE_SPEC_URL;
  benchmark: string;
  run_id: string;
  exit_code: number;
  status: BundleStatus;
  /** Why the status is not `ok` (null when ok). */
  status_reason: string | null;
  /** Present (true) when the run's time budget ran out before every item ran: the metrics cover the judged items. */
  partial?: true;
  /** With `partial`: the items not run, never counted as failures (a resumed run judges them). */
  not_run?: string[];
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

export interface BundleInput {
  benchmark: string;
  runId: string;
  config: Record<string, unknown>;
  participants: Record<string, string>;
  outcome: RunnerOutcome;
  artifacts: ArtifactPaths;
  /** What the runner left: missing artifacts and the results file, validated and converted (run-files.ts). */
  files: RunFiles;
  /** `aggregate` of the runner's run_finished event, when it sent one. */
  eventAggregate?: Record<string, unknown> | undefined;
}

function isObject(v: unknown): v is Record<string, unknown> {
  return typeof v === "object" && v !== null && !Array.isArray(v);
}

/** The aggregate metrics: the event's, else the results file's; smi_bench's marked with its version and count. */
function aggregateOf(results: RunResults | null, eventAggregate: Record<string, unknown> | undefined) {
  const base = { ...(eventAggregate ?? results?.aggregate ?? {}) };
  if (results?.smi) {
    base["results_schema_version"] = results.smi.results_schema_version;
    base["samples"] ??= results.smi.samples;
  }
  return base;
}

/** Errors and metrics: run-level problems, failed items, the aggregate with every failure mode counted. */
function errorsAndMetrics(input: BundleInput): { errors: BundleError[]; metrics: EvaluationBundle["metrics"] } {
  const tally = runProblems(input.outcome, input.artifacts, input.files);
  const aggregate = aggregateOf(input.files.results, input.eventAggregate);
  // A runner that counted its own failure modes (per sample) keeps them; else one count per failed item.
  const runnerModes = isObject(aggregate["failure_modes"]) ? aggregate["failure_modes"] : undefined;
  const dropped = addItemErrors(tally, input.files.results?.items ?? [], runnerModes === undefined);
  if (runnerModes) addRunnerModes(tally, runnerModes);
  const metrics: EvaluationBundle["metrics"] = { ...aggregate, failure_modes: tally.modes };
  if (dropped > 0) metrics["errors_not_listed"] = dropped;
  return { errors: tally.errors, metrics };
}

/** Assemble the bundle (see the module note). */
export function buildBundle(input: BundleInput): EvaluationBundle {
  const o = input.outcome;
  const { errors, metrics } = errorsAndMetrics(input);
  const exitCode = shellExitCode(o);
  const { status, reason } = statusOf(o, input.files.results, exitCode, errors);
  const notRun = input.files.results?.notRun ?? [];
  if (notRun.length > 0) metrics["items_not_run"] = notRun.length;
  return {
    schema_version: 1,
    spec_url: BUNDLE_SPEC_URL,
    benchmark: input.benchmark,
    run_id: input.runId,
    exit_code: exitCode,
    status,
    status_reason: reason,
    ...(notRun.length > 0 ? { partial: true as const, not_run: notRun } : {}),
    isolation: input.files.results?.isolation ?? null,
    participants: input.participants,
    timings: {
      started_at_unix_seconds: Math.floor(o.startedAtMs / 1000),
      finished_at_unix_seconds: Math.floor(o.finishedAtMs / 1000),
      elapsed_seconds: Math.max(0, o.durationMs / 1000),
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
    runner_output_tail: o.outputTail.slice(-OUTPUT_TAIL_LINES),
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
    `${b.benchmark} run ${b.run_id}: ${b.partial ? "PARTIAL (time budget ran out), " : ""}exit ${b.exit_code}, ${b.timings.elapsed_seconds.toFixed(1)} s` +
    (shown.length ? `, ${shown.join(", ")}` : "") +
    `, ${b.errors.length} error(s)` +
    (b.partial ? `, ${b.not_run?.length ?? 0} item(s) not run (not failures; resume with run_id ${b.run_id})` : "")
  );
}
