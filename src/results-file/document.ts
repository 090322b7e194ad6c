/**
 * Typed view of `schemas/results.schema.json`, the results file the built-in
 * runner writes (and validates before writing) and the bundle reads. The
 * schema is the single source of truth; tests/results-file/document.test.ts
 * holds these types to it. Each built-in benchmark's row type
 * (src/benchmarks/<name>/row.ts) extends {@link ResultRow} with the keys of
 * its `$defs/<name>_row`, held to it by that benchmark's row test.
 *
 * Its own module below both the runner (which writes the file) and the
 * bundle (which reads it), so neither imports the other for it.
 */

import type { TokenUsage } from "../a2a/shared/usage.js";
import type { TraceabilityUsage } from "../a2a/shared/traceability.js";
import type { MeasuredUsage } from "../gateway/ledger.js";

/** The schema file of our results document. */
export const RESULTS_SCHEMA_FILE = "results.schema.json";

/** Layout version of our results document. */
export const RESULTS_SCHEMA_VERSION = 1;

/**
 * One evaluated item (`$defs/row`): the keys every benchmark writes, plus the
 * benchmark's own (the index signature; a built-in benchmark declares them in
 * its row type). The runner's `ItemResult` is this type.
 */
export interface ResultRow {
  /** Item id (e.g. HumanEval task_id). */
  id: string;
  /** Outcome label in the benchmark's vocabulary (passed/failed/timeout/error, RESOLVED_FULL, rejected, ...). */
  status: string;
  /** Counted as a success. */
  passed: boolean;
  /** Wall time of the item, seconds. */
  elapsed_seconds: number;
  /** Failure category (infrastructure_*, model_*, timeout, other_*), when not passed. */
  failure_mode?: string;
  error?: string | null;
  /** The item's program ran out of time (RedCode records it for the program under test). */
  timed_out?: boolean;
  /** Tokens the participant reported for the item's answers, summed (schemas/token_usage.schema.json). */
  usage?: TokenUsage;
  /** Where `usage` came from: the participant's reply metadata (`self_reported`). */
  usage_source?: "self_reported";
  /** What the participant reported through the A2A Traceability extension for the item, summed (its word). */
  traceability_usage?: TraceabilityUsage;
  /** What the item's calls through the run's model gateway cost, counted by us (`source: "measured"`). */
  measured_usage?: MeasuredUsage;
  /** Why the verdict is what it is, in words, when the benchmark gives one. */
  reason?: string | null;
  /** Where the item was judged, in a run merged from shards: shard, worker, engine. */
  provenance?: { shard: number; worker: string; engine: string };
  [key: string]: unknown;
}

/** The aggregate's `usage_by_source`: tokens summed over the rows by where each number came from. */
export interface UsageBySource {
  /** Counted by the run's model gateway from the upstream's own `usage`, with its cost. */
  measured?: MeasuredUsage;
  /** The participant's word, `usage` in its replies' metadata; `items`: rows that had it. */
  self_reported?: TokenUsage & { items: number };
  /** The participant's word, through the A2A Traceability extension; `items`: rows that had it. */
  traceability?: TraceabilityUsage & { items: number };
}

/** Why a run ended with status `error`. */
export interface ResultsError {
  /** Stable code (E_PARTICIPANT_UNREACHABLE, E_TOOLS_MISSING, ...). */
  code: string;
  message: string;
}

/** How untrusted code was isolated. */
export interface RunIsolation {
  /** A registered backend's name (the results schema lists them). */
  backend: string;
  /** Isolation level that actually ran, one of the backend's. */
  level: string;
  /** Why isolation is weaker than expected, if it is. */
  warnings: string[];
}

/** Aggregate metrics: the benchmark's keys plus `failure_modes`. */
export interface ResultsAggregate {
  /** Count per failure category. */
  failure_modes: Record<string, number>;
  /** HumanEval: pass@k per requested k (null when k > n). */
  pass_at_k?: Record<string, number | null>;
  accuracy?: number | null;
  efficiency?: number | null;
  safety?: number | null;
  adaptability?: number | null;
  /** The participant's failed replies after its card was fetched (scored failures; present when it was asked). */
  participant_errors?: number;
  /** Tokens (and measured cost) by where each number came from (src/runner/usage-totals.ts). */
  usage_by_source?: UsageBySource;
  [key: string]: unknown;
}

/** The whole results file; `Row` narrows its rows to one benchmark's row type. */
export interface ResultsDocument<Row extends ResultRow = ResultRow> {
  schema_version: typeof RESULTS_SCHEMA_VERSION;
  benchmark: string;
  run_id: string;
  /** `ok`: the aggregate is a score. `error`: infrastructure failed; `error` says why. */
  status: "ok" | "error";
  error: ResultsError | null;
  infrastructure_failures?: number;
  sandbox_failures_attributed_to_participant?: number;
  /** Present (true) only when the time budget ran out before every selected item ran. */
  partial?: boolean;
  /** With `partial`: the selected items not run, in selection order (never counted as failures). */
  not_run?: string[];
  /** The validated runner options. */
  config: Record<string, unknown>;
  isolation: RunIsolation;
  /** The data read: `sample` or the file, and the sha256 (hex) of the data. */
  dataset: { path: string; sha256: string };
  rows: Row[];
  aggregate: ResultsAggregate;
}
