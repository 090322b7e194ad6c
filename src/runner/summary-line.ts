/**
 * The one line a person reads when a run ends (the `bar` and `plain` displays; `--json` prints
 * its object instead, `--events` the protocol): which benchmark and run, the score or why there
 * is none, the items counted by outcome, and where the files are. For example
 * `humaneval run r1: accuracy 0.8500; 20 items: 17 passed, 3 failed; out results/humaneval/r1`.
 */
import type { ResultRow, ResultsAggregate } from "../results-file/document.js";

/** The aggregate key read as the score when a benchmark names none. */
export const DEFAULT_SCORE_METRIC = "accuracy";

export interface RunSummaryInput {
  benchmark: string;
  runId: string;
  /** The run's output directory. */
  out: string;
  /** The aggregate key that is the score (the benchmark's `scoreMetric`); default {@link DEFAULT_SCORE_METRIC}. */
  scoreMetric?: string | undefined;
  interrupted: boolean;
  /** Why there is no score (status error). */
  error?: { code: string; message: string } | null | undefined;
  /** The results document's rows and aggregate; absent when the run stopped before writing it. */
  results?: { rows: readonly Pick<ResultRow, "status">[]; aggregate: ResultsAggregate } | undefined;
}

function formatScore(value: unknown): string {
  if (typeof value !== "number" || !Number.isFinite(value)) return "n/a";
  return Number.isInteger(value) ? String(value) : value.toFixed(4);
}

/** "20 items: 17 passed, 3 failed" — statuses in the order first met. */
function counts(rows: readonly Pick<ResultRow, "status">[]): string {
  const byStatus = new Map<string, number>();
  for (const r of rows) byStatus.set(r.status, (byStatus.get(r.status) ?? 0) + 1);
  const parts = [...byStatus].map(([status, n]) => `${n} ${status}`);
  return `${rows.length} item${rows.length === 1 ? "" : "s"}${parts.length > 0 ? `: ${parts.join(", ")}` : ""}`;
}

/** The summary line, without its newline. */
export function readableSummaryLine(input: RunSummaryInput): string {
  const head = `${input.benchmark} run ${input.runId}`;
  const parts: string[] = [];
  if (input.interrupted) parts.push("interrupted, no score (`--resume` continues from the checkpoint)");
  else if (input.error) parts.push(`status error, no score [${input.error.code}]: ${input.error.message}`);
  else {
    const metric = input.scoreMetric ?? DEFAULT_SCORE_METRIC;
    parts.push(`${metric} ${formatScore(input.results?.aggregate[metric])}`);
  }
  if (input.results) parts.push(counts(input.results.rows));
  parts.push(`out ${input.out}`);
  return `${head}: ${parts.join("; ")}`;
}
