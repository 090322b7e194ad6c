/**
 * Reports in SWE-bench's vocabulary: the per-instance report
 * (`{<id>: {patch_is_None, patch_exists, patch_successfully_applied, resolved,
 * tests_status}}`) and the run report (counts, `*_ids`, `schema_version: 2`),
 * plus the aggregate metrics merged into the runner's metrics.
 */
import type { ItemResult } from "../../runner/benchmark.js";
import type { TestsStatus } from "./grading.js";

/** Item status vocabulary of this benchmark (results rows' `status`). */
export type SwebenchStatus =
  | "RESOLVED_FULL"
  | "RESOLVED_PARTIAL"
  | "RESOLVED_NO"
  /** The model produced no patch. */
  | "EMPTY_PATCH"
  /** The patch did not apply with any strategy. */
  | "PATCH_APPLY_FAILED"
  /** The test run hit the time limit (SWE-bench counts it as an error instance). */
  | "TIMEOUT"
  /** Infrastructure failure (repo missing, test_patch does not apply, participant unreachable, ...). */
  | "ERROR";

export interface InstanceReport {
  patch_is_None: boolean;
  patch_exists: boolean;
  patch_successfully_applied: boolean;
  resolved: boolean;
  tests_status?: TestsStatus;
}

export interface RunReport {
  total_instances: number;
  submitted_instances: number;
  completed_instances: number;
  resolved_instances: number;
  unresolved_instances: number;
  empty_patch_instances: number;
  error_instances: number;
  completed_ids: string[];
  incomplete_ids: string[];
  empty_patch_ids: string[];
  submitted_ids: string[];
  resolved_ids: string[];
  unresolved_ids: string[];
  error_ids: string[];
  schema_version: 2;
}

const COMPLETED: ReadonlySet<string> = new Set(["RESOLVED_FULL", "RESOLVED_PARTIAL", "RESOLVED_NO", "PATCH_APPLY_FAILED"]);

/**
 * The run report from result rows. As in SWE-bench: `submitted` = has a
 * non-empty patch; `completed` = evaluated to a verdict (including a patch
 * that failed to apply, which SWE-bench also reports as unresolved);
 * `error` = timeouts and infrastructure errors.
 */
export function runReport(rows: ItemResult[]): RunReport {
  const sorted = [...rows].sort((a, b) => a.id.localeCompare(b.id));
  const ids = (pred: (r: ItemResult) => boolean) => sorted.filter(pred).map((r) => r.id);
  const submitted_ids = ids((r) => r["patch_exists"] === true);
  const completed_ids = ids((r) => COMPLETED.has(r.status));
  const resolved_ids = ids((r) => r.status === "RESOLVED_FULL");
  const unresolved_ids = ids((r) => COMPLETED.has(r.status) && r.status !== "RESOLVED_FULL");
  const empty_patch_ids = ids((r) => r.status === "EMPTY_PATCH");
  const error_ids = ids((r) => r.status === "TIMEOUT" || r.status === "ERROR");
  const incomplete_ids = ids((r) => !COMPLETED.has(r.status));
  return {
    total_instances: rows.length,
    submitted_instances: submitted_ids.length,
    completed_instances: completed_ids.length,
    resolved_instances: resolved_ids.length,
    unresolved_instances: unresolved_ids.length,
    empty_patch_instances: empty_patch_ids.length,
    error_instances: error_ids.length,
    completed_ids,
    incomplete_ids,
    empty_patch_ids,
    submitted_ids,
    resolved_ids,
    unresolved_ids,
    error_ids,
    schema_version: 2,
  };
}

/**
 * Aggregate metrics: resolved rate (resolved / all items), patch-apply rate
 * (applied / items with a non-empty patch; null when none had one), the
 * status counts and the run report.
 */
export function aggregateSwebench(rows: ItemResult[]): Record<string, unknown> {
  const total = rows.length;
  const resolved = rows.filter((r) => r.status === "RESOLVED_FULL").length;
  const withPatch = rows.filter((r) => r["patch_exists"] === true);
  const applied = withPatch.filter((r) => r["patch_successfully_applied"] === true).length;
  const counts: Record<string, number> = {};
  for (const r of rows) counts[r.status] = (counts[r.status] ?? 0) + 1;
  return {
    resolved_rate: total === 0 ? 0 : resolved / total,
    patch_apply_rate: withPatch.length === 0 ? null : applied / withPatch.length,
    resolved: resolved,
    total: total,
    status_counts: counts,
    swebench_report: runReport(rows),
  };
}
