/**
 * Run-level reports in the official harness's vocabulary: the run report
 * (`make_run_report`, schema_version 2; schemas/swebench_run_report.schema.json)
 * from result rows, the aggregate metrics merged into the runner's, and the
 * files written next to the results: the run report as
 * `swebench/<model>.<run_id>.json` and the run's predictions as
 * `swebench/predictions.jsonl` (sb-cli / official format).
 */
import { readFileSync, renameSync, writeFileSync, mkdirSync, existsSync } from "node:fs";
import { join } from "node:path";
import { randomBytes } from "node:crypto";
import type { ItemResult } from "../../runner/benchmark.js";
import type { RunOptions } from "../../runner/options.js";
import { predictionsJsonl, type Prediction } from "./predictions.js";
import { assertValid } from "../../util/schema.js";

export type { InstanceReport, ReportJson } from "./grading.js";

/** Item status vocabulary of this benchmark (results rows' `status`). */
export type SwebenchStatus =
  | "RESOLVED_FULL"
  | "RESOLVED_PARTIAL"
  | "RESOLVED_NO"
  /** The model produced no patch. */
  | "EMPTY_PATCH"
  /** The patch did not apply with any strategy (official: an error instance, no report). */
  | "PATCH_APPLY_FAILED"
  /** The test run hit the time limit (official: an error instance). */
  | "TIMEOUT"
  /** Infrastructure failure (tool or repository missing, test_patch does not apply, participant or sandbox failure). */
  | "ERROR";

export interface RunReport {
  total_instances: number;
  submitted_instances: number;
  completed_instances: number;
  resolved_instances: number;
  unresolved_instances: number;
  /** 5.0.x: unresolved/error instances whose logs match an environment signature (advisory). */
  infra_failure_instances: number;
  /** 5.0.x: ... whose logs match a signature that a patch could also cause (advisory). */
  ambiguous_failure_instances: number;
  empty_patch_instances: number;
  error_instances: number;
  completed_ids: string[];
  incomplete_ids: string[];
  empty_patch_ids: string[];
  submitted_ids: string[];
  resolved_ids: string[];
  unresolved_ids: string[];
  infra_failure_ids: string[];
  ambiguous_failure_ids: string[];
  failure_reasons: Record<string, string>;
  error_ids: string[];
  schema_version: 2;
}

const COMPLETED: ReadonlySet<string> = new Set(["RESOLVED_FULL", "RESOLVED_PARTIAL", "RESOLVED_NO"]);

/** Was a prediction submitted for this row? Rows without the field (older checkpoints): anything but a pre-patch ERROR. */
function submitted(r: ItemResult): boolean {
  return typeof r["submitted"] === "boolean" ? r["submitted"] : r.status !== "ERROR" || r["patch_exists"] === true;
}

/**
 * The official run report from result rows:
 * - submitted = a prediction exists (from the file, or the participant answered), even an empty one;
 * - empty_patch = submitted with an empty or null patch;
 * - completed = graded into a report (RESOLVED_FULL / PARTIAL / NO); resolved = FULL;
 * - error = submitted, non-empty and not graded: the patch did not apply, the
 *   tests timed out, or the harness failed (the official harness writes no
 *   report.json in each of these cases);
 * - incomplete = not submitted.
 */
export function runReport(rows: ItemResult[]): RunReport {
  const sorted = [...rows].sort((a, b) => (a.id < b.id ? -1 : a.id > b.id ? 1 : 0));
  const ids = (pred: (r: ItemResult) => boolean) => sorted.filter(pred).map((r) => r.id);
  const submitted_ids = ids(submitted);
  const completed_ids = ids((r) => COMPLETED.has(r.status));
  // Official: resolved = report.json's `resolved` (a --strict-tests row keeps it while its status turns).
  const resolved_ids = ids((r) => COMPLETED.has(r.status) && resolvedOf(r));
  const unresolved_ids = ids((r) => COMPLETED.has(r.status) && !resolvedOf(r));
  const empty_patch_ids = ids((r) => r.status === "EMPTY_PATCH");
  const error_ids = ids((r) => submitted(r) && r.status !== "EMPTY_PATCH" && !COMPLETED.has(r.status));
  const incomplete_ids = ids((r) => !submitted(r));
  const failure_reasons: Record<string, string> = {};
  const infra_failure_ids: string[] = [];
  const ambiguous_failure_ids: string[] = [];
  const notResolved = new Set([...unresolved_ids, ...error_ids]);
  for (const r of sorted) {
    const sig = r["infra_signature"] as { reason: string; environment: boolean } | undefined;
    if (!sig || !notResolved.has(r.id)) continue;
    failure_reasons[r.id] = sig.reason;
    (sig.environment ? infra_failure_ids : ambiguous_failure_ids).push(r.id);
  }
  return {
    total_instances: rows.length,
    submitted_instances: submitted_ids.length,
    completed_instances: completed_ids.length,
    resolved_instances: resolved_ids.length,
    unresolved_instances: unresolved_ids.length,
    infra_failure_instances: infra_failure_ids.length,
    ambiguous_failure_instances: ambiguous_failure_ids.length,
    empty_patch_instances: empty_patch_ids.length,
    error_instances: error_ids.length,
    completed_ids,
    incomplete_ids,
    empty_patch_ids,
    submitted_ids,
    resolved_ids,
    unresolved_ids,
    infra_failure_ids,
    ambiguous_failure_ids,
    failure_reasons,
    error_ids,
    schema_version: 2,
  };
}

/** Official file name of a run report: `<model with / as __>.<run_id>.json`. */
export function runReportFileName(modelName: string, runId: string): string {
  return `${modelName.replaceAll("/", "__")}.${runId}.json`;
}

function writeSyncAtomic(path: string, data: string): void {
  const tmp = `${path}.${process.pid}.${randomBytes(4).toString("hex")}.tmp`;
  writeFileSync(tmp, data);
  renameSync(tmp, path);
}

/** A row's `model_name_or_path` as the predictions file's string; "unknown" when absent or not a scalar. */
function modelName(value: unknown): string {
  return typeof value === "string" || typeof value === "number" || typeof value === "boolean"
    ? String(value)
    : "unknown";
}

/** The predictions a run scored, read back from each instance's artifacts (`patch.diff`; absent = null patch). */
export function runPredictions(rows: ItemResult[]): Prediction[] {
  return [...rows]
    .filter(submitted)
    .sort((a, b) => (a.id < b.id ? -1 : a.id > b.id ? 1 : 0))
    .map((r) => {
      const dir = typeof r["artifacts_dir"] === "string" ? r["artifacts_dir"] : null;
      const file = dir ? join(dir, "patch.diff") : null;
      const patch = file && existsSync(file) ? readFileSync(file, "utf8") : null;
      return {
        instance_id: r.id,
        model_name_or_path: modelName(r["model_name_or_path"]),
        model_patch: patch,
      };
    });
}

/**
 * Write the run report and the predictions next to the results
 * (`<out>/swebench/`); returns the run report's path. Synchronous because the
 * runner's aggregate hook is.
 */
export function writeRunFiles(
  rows: ItemResult[],
  options: Pick<RunOptions, "out" | "run_id">,
  report: RunReport,
): string {
  const dir = join(options.out, "swebench");
  mkdirSync(dir, { recursive: true });
  const predictions = runPredictions(rows);
  const model = predictions[0]?.model_name_or_path ?? "none";
  const path = join(dir, runReportFileName(model, options.run_id));
  assertValid("swebench_run_report.schema.json", report, "SWE-bench run report");
  writeSyncAtomic(path, JSON.stringify(report, null, 4) + "\n");
  writeSyncAtomic(join(dir, "predictions.jsonl"), predictionsJsonl(predictions));
  return path;
}

/** The row's official verdict: report.json's `resolved`; rows without it (older checkpoints): RESOLVED_FULL. */
function resolvedOf(r: ItemResult): boolean {
  return typeof r["resolved"] === "boolean" ? r["resolved"] : r.status === "RESOLVED_FULL";
}

/** Resolved and nothing flagged; rows without the field: resolved and no touched test configuration. */
function resolvedStrictOf(r: ItemResult): boolean {
  if (typeof r["resolved_strict"] === "boolean") return r["resolved_strict"];
  const touched = r["touches_test_config"];
  return resolvedOf(r) && !(Array.isArray(touched) && touched.length > 0);
}

/**
 * Interactive runs: mean turns over the items that ran an episode, how the episodes ended, and
 * the tokens the participant reported per resolved item (null when it reported none for any item:
 * its word, not a measurement). Undefined when no row ran an episode.
 */
function interactiveSummary(rows: ItemResult[]): Record<string, unknown> | undefined {
  const ran = rows.filter((r) => r["interaction"] === "interactive");
  if (ran.length === 0) return undefined;
  const endings: Record<string, number> = {};
  for (const r of ran) endings[String(r["exit_status"])] = (endings[String(r["exit_status"])] ?? 0) + 1;
  const turns = ran.reduce((s, r) => s + (typeof r["turns"] === "number" ? r["turns"] : 0), 0);
  const tokens = ran
    .map((r) => (r["usage"] as { total_tokens?: unknown } | undefined)?.total_tokens)
    .filter((t): t is number => typeof t === "number");
  const resolved = ran.filter(resolvedOf).length;
  return {
    items: ran.length,
    mean_turns: turns / ran.length,
    exit_status_counts: endings,
    self_reported_tokens: tokens.length === 0 ? null : tokens.reduce((a, b) => a + b, 0),
    self_reported_tokens_per_resolved:
      tokens.length === 0 || resolved === 0 ? null : tokens.reduce((a, b) => a + b, 0) / resolved,
  };
}

/**
 * Aggregate metrics: `resolved_rate` (official `resolved` / all items, comparable with the
 * official leaderboard whatever `--strict-tests` says), `resolved_strict_rate` (resolved with
 * nothing flagged / all items), patch-apply rate (applied / items with a non-empty patch; null when
 * none had one), the status counts, the flagged instances, and the run report (official
 * `resolved_ids`, plus `resolved_strict_ids`). With `options`, the run files are written too.
 */
export function aggregateSwebench(
  rows: ItemResult[],
  options?: Pick<RunOptions, "out" | "run_id">,
): Record<string, unknown> {
  const total = rows.length;
  const resolved = rows.filter(resolvedOf).length;
  const resolvedStrict = rows.filter(resolvedStrictOf).length;
  const withPatch = rows.filter((r) => r["patch_exists"] === true && r.status !== "EMPTY_PATCH");
  // git applied the patch (apply_strategy); rows without the field fall back on the report's flag.
  const applied = withPatch.filter((r) =>
    "apply_strategy" in r ? typeof r["apply_strategy"] === "string" : r["patch_successfully_applied"] === true,
  ).length;
  const counts: Record<string, number> = {};
  for (const r of rows) counts[r.status] = (counts[r.status] ?? 0) + 1;
  const report = runReport(rows);
  const touched = rows
    .filter((r) => Array.isArray(r["touches_test_config"]) && (r["touches_test_config"] as unknown[]).length > 0)
    .map((r) => r.id)
    .sort();
  const out: Record<string, unknown> = {
    resolved_rate: total === 0 ? 0 : resolved / total,
    resolved_strict_rate: total === 0 ? 0 : resolvedStrict / total,
    patch_apply_rate: withPatch.length === 0 ? null : applied / withPatch.length,
    resolved,
    resolved_strict: resolvedStrict,
    total,
    status_counts: counts,
    touches_test_config_ids: touched,
    resolved_strict_ids: rows
      .filter(resolvedStrictOf)
      .map((r) => r.id)
      .sort(),
    interpreter_missing_ids: rows
      .filter((r) => r["interpreter_missing"] === true)
      .map((r) => r.id)
      .sort(),
    swebench_report: report,
  };
  const episodes = interactiveSummary(rows);
  if (episodes) out["interactive"] = episodes;
  if (options) out["swebench_report_path"] = writeRunFiles(rows, options, report);
  return out;
}
