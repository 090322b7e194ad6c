/**
 * smi_bench's Phase II results file (what the external `smi-inhabit` writes
 * at `--out`): typed view of `schemas/smi_results.schema.json` and its one
 * conversion into the bundle's {@link RunResults}. Only the green agent reads
 * it, to build the evaluation bundle; nothing past that edge sees its shape.
 */
import type { ResultItem, RunResults } from "./run-results.js";

/** The schema file of smi_bench's results. */
export const SMI_RESULTS_SCHEMA_FILE = "smi_results.schema.json";

/** smi_bench's results layout version (Phase II). */
export const SMI_RESULTS_SCHEMA_VERSION = 2;

/** One evaluated package. */
export interface SmiPackage {
  package_id: string;
  /** targets, created_distinct, created_hits, missing. */
  score?: Record<string, unknown>;
  error?: string | null;
  /** Seconds. */
  elapsed_seconds?: number | null;
  timed_out?: boolean | null;
  plan_attempts?: number | null;
  sim_attempts?: number | null;
  [key: string]: unknown;
}

export interface SmiResults {
  schema_version: typeof SMI_RESULTS_SCHEMA_VERSION;
  /** avg_hit_rate, max_hit_rate, errors, token totals. */
  aggregate?: Record<string, unknown>;
  packages: SmiPackage[];
  [key: string]: unknown;
}

function itemOf(p: SmiPackage): ResultItem {
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
    items: doc.packages.map(itemOf),
  };
}
