/**
 * What the evaluation bundle takes from a run's results file, whichever runner
 * wrote it. The file is read, validated against its schema and converted to
 * {@link RunResults} once, at the edge (run-files.ts); the bundle builder
 * then reads only these typed fields.
 *
 * Two layouts are known, told apart by their `schema_version`: ours (1,
 * `schemas/results.schema.json`, the built-in runner) and smi_bench's Phase II
 * (2, `schemas/smi_results.schema.json`, the external smi-inhabit runner;
 * smi-results.ts). A file that matches neither is a results problem of the run.
 */
import { checkAgainst } from "../util/schema.js";
import {
  RESULTS_SCHEMA_FILE,
  type ResultRow,
  type ResultsDocument,
  type ResultsError,
  type RunIsolation,
} from "../results-file/document.js";
import {
  SMI_RESULTS_SCHEMA_FILE,
  SMI_RESULTS_SCHEMA_VERSION,
  type SmiPackage,
  type SmiResults,
} from "./smi-results.js";

/** One evaluated item, as the bundle reads it (null: the row does not say). */
export interface ResultItem {
  id: string;
  /** Outcome label (null when the layout has none, as smi_bench's). */
  status: string | null;
  error: string | null;
  timed_out: boolean | null;
  /** The runner's failure category, when it gave one. */
  failure_mode: string | null;
  /** Seconds (null when absent or not a non-negative number). */
  elapsed_seconds: number | null;
  plan_attempts: number | null;
  sim_attempts: number | null;
  /** smi_bench's per-package score; empty for ours. */
  score: Record<string, unknown>;
}

export interface RunResults {
  /** Our results file's verdict; null for smi_bench's, which has none. */
  verdict: { status: "ok" | "error"; error: ResultsError | null } | null;
  /** Sandbox isolation the run had; null when the file does not say (smi_bench). */
  isolation: RunIsolation | null;
  /** The file's aggregate metrics, when it has them. */
  aggregate: Record<string, unknown> | null;
  /** Items selected but not run because the run's time budget ran out (empty when the run is whole). */
  notRun?: string[];
  /** Set for smi_bench's layout: its version and package count go into the bundle's metrics. */
  smi: { results_schema_version: typeof SMI_RESULTS_SCHEMA_VERSION; samples: number } | null;
  items: ResultItem[];
}

/** Problems listed in a "does not match" message at most (the rest are counted). */
const MAX_LISTED_PROBLEMS = 5;

function itemOf(row: ResultRow): ResultItem {
  return {
    id: row.id,
    status: row.status,
    error: row.error ?? null,
    timed_out: row.timed_out ?? null,
    failure_mode: row.failure_mode ?? null,
    elapsed_seconds: row.elapsed_seconds,
    plan_attempts: null,
    sim_attempts: null,
    score: {},
  };
}

/** Our results document as the bundle reads it. */
export function fromResultsDocument(doc: ResultsDocument): RunResults {
  return {
    verdict: { status: doc.status, error: doc.error },
    isolation: doc.isolation,
    aggregate: doc.aggregate,
    notRun: doc.partial ? [...(doc.not_run ?? [])] : [],
    smi: null,
    items: doc.rows.map(itemOf),
  };
}

function itemOfPackage(p: SmiPackage): ResultItem {
  const elapsed = p.elapsed_seconds ?? null;
  return {
    id: p.package_id,
    status: null,
    error: p.error ?? null,
    timed_out: p.timed_out ?? null,
    failure_mode: null,
    elapsed_seconds: elapsed !== null && elapsed >= 0 ? elapsed : null,
    plan_attempts: p.plan_attempts ?? null,
    sim_attempts: p.sim_attempts ?? null,
    score: p.score ?? {},
  };
}

/** smi_bench's results as the bundle reads them: packages as items, no verdict, no isolation. */
export function fromSmiResults(doc: SmiResults): RunResults {
  return {
    verdict: null,
    isolation: null,
    aggregate: doc.aggregate ?? null,
    smi: { results_schema_version: SMI_RESULTS_SCHEMA_VERSION, samples: doc.packages.length },
    items: doc.packages.map(itemOfPackage),
  };
}

function mismatch(file: string, problems: readonly string[]): string {
  const listed = problems.slice(0, MAX_LISTED_PROBLEMS).join("; ");
  const more = problems.length > MAX_LISTED_PROBLEMS ? ` (and ${problems.length - MAX_LISTED_PROBLEMS} more)` : "";
  return `results file does not match schemas/${file}: ${listed}${more}`;
}

/**
 * Validate a parsed results file against the schema its `schema_version`
 * names and convert it; `problem` says why it cannot be used.
 */
export function toRunResults(value: unknown): { results: RunResults } | { problem: string } {
  const version =
    typeof value === "object" && value !== null ? (value as { schema_version?: unknown }).schema_version : undefined;
  const file = version === SMI_RESULTS_SCHEMA_VERSION ? SMI_RESULTS_SCHEMA_FILE : RESULTS_SCHEMA_FILE;
  const problems = checkAgainst(file, value);
  if (problems.length > 0) return { problem: mismatch(file, problems) };
  // Validated just above against the schema these types restate.
  return file === SMI_RESULTS_SCHEMA_FILE
    ? { results: fromSmiResults(value as SmiResults) }
    : { results: fromResultsDocument(value as ResultsDocument) };
}
