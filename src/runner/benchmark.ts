/**
 * The plug-in contract between the generic runner (sampling, sharding,
 * concurrency, checkpoint/resume, results/events files, A2A_EVENT progress)
 * and one benchmark. A benchmark supplies only what is its own: how to load
 * items, how to evaluate one, how to aggregate rows.
 */
import type { Logger } from "../util/logger.js";
import type { Sandbox, SandboxWarmUp } from "../sandbox/types.js";
import type { RunOptions } from "./options.js";
import type { Participant } from "../a2a/shared/participant.js";
import type { ResultRow } from "../results-file/document.js";

export interface BenchmarkItem {
  /** Stable id, used for sampling (FNV-1a), sharding, checkpoints. */
  id: string;
}

/**
 * One evaluated item: a row of the results file (`$defs/row` of
 * schemas/results.schema.json). Flat, JSON-serialisable; a benchmark's own row
 * type extends it (src/benchmarks/<name>/row.ts).
 */
export type ItemResult = ResultRow;

export interface EvaluateContext {
  options: RunOptions;
  sandbox: Sandbox;
  /** The participant under test; null when the benchmark needs none (e.g. predictions file, replay mode). */
  participant: Participant | null;
  logger: Logger;
  signal: AbortSignal;
  /** Per-run scratch directory (inside the run's out dir). */
  workDir: string;
  /**
   * Interactive items: told each command the participant asks for, before it runs (the runner
   * streams it as a `turn` event, the green agent as a `working` status). Absent: nobody listens.
   */
  onTurn?: (turn: { turn: number; command: string }) => void;
}

/** Identity of the data a run read (recorded in run_metadata and checked on resume). */
export interface DatasetInfo {
  /** The dataset as named or resolved (`sample`, an absolute path, ...). */
  path: string;
  /** sha256 of its bytes (hex), or of a canonical serialisation for embedded sets. */
  sha256: string;
}

/**
 * What bounds how many items a run has in flight:
 * - `"sandbox"`: `concurrency` items at once. For items that hold heavy
 *   resources (a git worktree, a scratch repository) for their whole
 *   evaluation, or that need no participant.
 * - `"participant"`: up to `participant_concurrency` items at once. For items
 *   that mostly wait on the participant's answer and hold nothing heavy
 *   meanwhile; the runner still lets at most `concurrency` of them use the
 *   sandbox at a time, so sandbox load is what it is with `"sandbox"`.
 */
export type InFlightBound = "sandbox" | "participant";

export interface BenchmarkDefinition<I extends BenchmarkItem = BenchmarkItem> {
  readonly name: string;
  /** What bounds the items in flight; default `"sandbox"` (see {@link InFlightBound}). */
  readonly inFlight?: InFlightBound;
  /**
   * True when items are short python programs: the runner calls the sandbox's
   * `warmUp()` at run start, so its fork server starts while the first answers
   * are on their way. Default false (a benchmark that never uses it would pay
   * for a python process for nothing). An object is also what the run's jobs
   * share (python modules loaded once, standard library only), given to warmUp.
   */
  readonly warmSandbox?: boolean | SandboxWarmUp;
  /**
   * Optional: what data loadItems read (called after it). Without it the
   * runner records `options.dataset` and a sha256 over the item ids.
   */
  describeDataset?(options: RunOptions): Promise<DatasetInfo>;
  /** Load every item of the dataset named by options.dataset (sampling is done by the runner). */
  loadItems(options: RunOptions, logger: Logger): Promise<I[]>;
  /** Whether a participant URL is required with these options. */
  needsParticipant(options: RunOptions): boolean;
  /** Evaluate one item. Must not throw for item-level failures: return a row saying so. */
  evaluate(item: I, ctx: EvaluateContext): Promise<ItemResult>;
  /** Benchmark-specific aggregate (pass@k, resolved rate, ASR, ...), merged with the runner's common metrics. */
  aggregate(rows: ItemResult[], options: RunOptions): Record<string, unknown>;
  /**
   * Optional: the same aggregate computed incrementally, one row at a time in
   * the run's item order (`add`), then `result()`. With it the runner never
   * holds every full row at once (see row-store.ts); without it the rows are
   * read back together for `aggregate`.
   */
  createAggregator?(options: RunOptions): RowAggregator;
  /** The aggregate key people read as the run's score (its one-line summary); default `accuracy`. */
  readonly scoreMetric?: string;
  /**
   * Optional: release what `evaluate` kept for reuse between items of a run
   * (e.g. SWE-bench's pool of git worktrees). Called once after the last
   * evaluate has returned, also when the run fails or is cancelled.
   */
  endRun?(ctx: RunEndContext): Promise<void>;
}

/** An aggregate fed one row at a time (see `BenchmarkDefinition.createAggregator`). */
export interface RowAggregator {
  add(row: ItemResult): void;
  result(): Record<string, unknown>;
}

export interface RunEndContext {
  options: RunOptions;
  logger: Logger;
  /** The same per-run scratch directory the run's evaluate calls got. */
  workDir: string;
}
