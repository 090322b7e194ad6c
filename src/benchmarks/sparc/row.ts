/**
 * The results-file row of one SPARC test case (`$defs/sparc_row` of
 * schemas/results.schema.json); tests/benchmarks/sparc/row.test.ts holds it
 * to the schema.
 */
import type { ResultRow } from "../../results-file/document.js";
import type { SparcBenchmarkType, SparcLanguage } from "./config.js";

/** passed | failed (exit 0, wrong output) | timeout | error (non-zero exit, signal or output cap) | skipped (sandbox failure, cancelled). */
export type SparcStatus = "passed" | "failed" | "timeout" | "error" | "skipped";

export interface SparcRow extends ResultRow {
  status: SparcStatus;
  language: SparcLanguage;
  benchmark_type: SparcBenchmarkType;
  benchmark_name: string;
  /** Program wall time in the sandbox, ms (the plan's `executionTime`). */
  execution_ms: number;
  /** The limit the case ran under, ms. */
  timeout_ms: number;
  /** Standard output (tail). */
  output: string;
  /** The sandbox stopped the program for a containment-limit breach (output, memory, processes, network; not time). */
  limit_breach: boolean;
  /** Process exit code as the kernel reported it, null when killed or not run. */
  exit_code: number | null;
  /** Signal that ended the program, as the kernel reported it (null: it exited, or did not run). */
  signal: string | null;
}

/** Narrow a generic row read back from results/checkpoint files. */
export function isSparcRow(row: ResultRow): row is SparcRow {
  return typeof row["language"] === "string" && typeof row["execution_ms"] === "number";
}
