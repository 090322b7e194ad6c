/**
 * smi_bench's Phase II results file (what the external `smi-inhabit` writes
 * at `--out`): typed view of `schemas/smi_results.schema.json`. Only the
 * green agent reads it, converted once into the bundle's RunResults
 * (run-results.ts); nothing past that edge sees its shape.
 */

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
