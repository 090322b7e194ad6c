/**
 * The benchmark-agnostic runner: load → sample → shard → (resume) →
 * evaluate with bounded concurrency (see lanes.ts) → rows → aggregate, with
 * the checkpoint appended as items finish (coalesced appends, see
 * checkpoint-writer.ts; the runner keeps row summaries, see row-store.ts), every event in events.jsonl and on the progress
 * reporter, and results.json / run_metadata.json written atomically at the
 * end. A stop (SIGTERM, stdin closed: the caller aborts `signal`) starts no
 * new item, cancels the running ones, closes the sandbox, writes the
 * checkpoint (every finished row) and returns exit code 143. The time budget
 * (`time_budget_seconds`) running out does the same to the items, but the run
 * then finishes: the judged rows are scored and results.json is marked
 * `partial` with the items not run listed (resumable from the checkpoint).
 *
 * Infrastructure is checked before the first item: sandbox isolation (when
 * the caller requires full isolation) and the participant (its agent card).
 * A failure there, an InfrastructureError from an item, or too many items
 * failed on our side (run-verdict.ts) end the run with status `error`, the
 * reason in results.json, and exit code 3 — never a score.
 *
 * {@link executeRun} takes a resolved RunOptions and a benchmark definition
 * its caller looked up (the CLI; the library's runBenchmark in src/library/).
 */
import { commandStatusLine } from "../interactive/episode.js";
import { mkdirSync } from "node:fs";
import { createHash } from "node:crypto";
import { join } from "node:path";
import type { Logger } from "../util/logger.js";
import { writeJsonAtomic } from "../util/atomic-write.js";
import { BenchError, errorMessage } from "../util/errors.js";
import type { Sandbox, SandboxWarmUp } from "../sandbox/types.js";
import { RESULTS_SCHEMA_VERSION, type ResultsDocument } from "../results-file/document.js";
import type { BenchmarkDefinition, BenchmarkItem, DatasetInfo, ItemResult, RowAggregator } from "./benchmark.js";
import type { RunOptions } from "./options.js";
import type { Participant } from "../a2a/shared/participant.js";
import type { RunnerEvent } from "./protocol.js";
import type { ProgressReporter } from "./progress.js";
import { selectItems } from "./selection.js";
import {
  CHECKPOINT_FILE,
  assertSameIdentity,
  dropTornTail,
  readCheckpoint,
  type CheckpointIdentity,
} from "./checkpoint.js";
import { createCheckpointWriter, type CheckpointWriter } from "./checkpoint-writer.js";
import { RunStops } from "./run-stops.js";
import { openEventLog } from "./event-log.js";
import { gateSandbox, planLanes, type LanePlan } from "./lanes.js";
import { runPool } from "./pool.js";
import { hostInfo } from "./run-metadata.js";
import { InfrastructureError } from "../util/infrastructure-error.js";
import { isFullIsolation, weakIsolationError } from "./isolation-policy.js";
import { countFailureModes, judgeRun, type RunError } from "./run-verdict.js";
import { SANDBOX_FAILURE_MODE, sandboxWorks } from "./sandbox-canary.js";
import { countParticipantErrors } from "./participant-failure.js";
import { RowStore, readFullRows, summarizeRow, type StoredRow } from "./row-store.js";
import { writeResultsStreaming, type ResultsHead } from "./results-writer.js";
import { attributeRow } from "./attribution.js";
import { startAssessmentGateway, type AssessmentGateway } from "../gateway/assessment-gateway.js";
import type { GatewaySettings } from "../gateway/settings.js";
import { itemParticipant } from "../gateway/item-participant.js";
import { tracedParticipant } from "../a2a/shared/traceability.js";
import { UsageTotals } from "./usage-totals.js";
import { recordWorkerStart, workerIdentity, type WorkerIdentity } from "./worker-log.js";

export const RESULTS_FILE = "results.json";
export const EVENTS_FILE = "events.jsonl";
export const RUN_METADATA_FILE = "run_metadata.json";
/**
 * Least time between two checkpoint appends, ms. Why: each append is
 * fsync'd; on a fast run one per finished item cost more than the items.
 * A stop still writes every finished row at once.
 */
export const CHECKPOINT_MIN_INTERVAL_MS = 100;
/** Exit code of a run stopped by SIGTERM or a closed stdin (128 + SIGTERM). */
export const EXIT_INTERRUPTED = 143;
/** Exit code of a run that ended with status `error` (infrastructure failed; results.json says why). */
export const EXIT_INFRASTRUCTURE = 3;

export interface RunDependencies {
  logger: Logger;
  /** Creates the run's one sandbox (closed by the runner). */
  createSandbox(options: RunOptions): Promise<Sandbox> | Sandbox;
  /** Creates the participant for `options.agent`; required when the benchmark needs one. */
  createParticipant?(options: RunOptions & { agent: string }): Participant;
  progress?: ProgressReporter;
  /** Aborting stops the run (see module note). */
  signal?: AbortSignal;
  /**
   * Refuse to run below full isolation (isolation-policy.ts): the run ends with
   * status `error` before any item. The green agent sets it for A2A requests.
   */
  requireFullIsolation?: { optIn: string };
  /**
   * Arms the time budget's timer: calls `onEnd` after `ms`, returns the disarm. Default `setTimeout`; tests
   * end the budget on an event of their own instead of a wait.
   */
  budgetTimer?: (ms: number, onEnd: () => void) => () => void;
  /** Who runs this start, recorded in `workers.jsonl` (worker-log.ts); default this host and process, engine `local`. */
  worker?: WorkerIdentity;
  /**
   * The operator's model gateway (src/gateway/): with `model_gateway` in the options the run opens one for
   * itself, hands each item its own token and records what each item's calls cost. Absent: a run asking for
   * a gateway is refused.
   */
  modelGateway?: GatewaySettings;
}

/** The default {@link RunDependencies.budgetTimer}. */
function budgetTimeout(ms: number, onEnd: () => void): () => void {
  const timer = setTimeout(onEnd, ms);
  return () => clearTimeout(timer);
}

export interface RunPaths {
  out: string;
  results: string;
  events: string;
  run_metadata: string;
  checkpoint: string;
}

export interface RunOutcome {
  /** 0 = finished (item failures are results, not errors), 3 = infrastructure error, 143 = stopped. */
  exitCode: number;
  interrupted: boolean;
  /** `error` when infrastructure failed (see `error`); absent when interrupted. */
  status?: "ok" | "error";
  error?: RunError | null;
  paths: RunPaths;
  /**
   * The results document (absent when interrupted), its rows as summaries (the core keys: id, status, passed,
   * failure_mode, error...): results.json holds the full rows, which the runner does not keep in memory.
   */
  results?: ResultsDocument;
}

/** Output file paths of a run in `out`. */
export function runPaths(out: string): RunPaths {
  return {
    out,
    results: join(out, RESULTS_FILE),
    events: join(out, EVENTS_FILE),
    run_metadata: join(out, RUN_METADATA_FILE),
    checkpoint: join(out, CHECKPOINT_FILE),
  };
}

/** The config part of the options as recorded (everything but where to write). */
function recordedConfig(options: RunOptions): Record<string, unknown> {
  const { out: _out, ...config } = options;
  return config;
}

/**
 * The engine: evaluate `def` with the resolved `options` (see the module note).
 * Callers resolve the config and look the benchmark up once and pass both in
 * (the CLI, {@link runBenchmark}). Throws BenchError for setup failures, and
 * InfrastructureError when our side fails before the first item.
 */
export async function executeRun(
  def: BenchmarkDefinition<BenchmarkItem>,
  options: RunOptions,
  deps: RunDependencies,
): Promise<RunOutcome> {
  const paths = runPaths(options.out);
  mkdirSync(options.out, { recursive: true });
  const events = openEventLog(paths.events);
  try {
    return await runOpened(def, options, deps, paths, (event) => {
      events.append(event);
      deps.progress?.onEvent(event);
    });
  } finally {
    events.close();
  }
}

/** Refuse options the run cannot honour, before anything is loaded; whether the run asks a participant. */
function checkRunnable(def: BenchmarkDefinition<BenchmarkItem>, options: RunOptions): boolean {
  if (options.shard_index >= options.num_shards) {
    throw new BenchError(
      "E_OPTIONS",
      `shard_index ${options.shard_index} must be below num_shards ${options.num_shards}`,
    );
  }
  const needsParticipant = def.needsParticipant(options);
  if (needsParticipant && !options.agent) {
    throw new BenchError("E_NO_PARTICIPANT", `benchmark ${def.name} needs a participant: give --agent <A2A url>`);
  }
  return needsParticipant;
}

/** The run's items: all of the dataset, the selected ones in order, the rows resumed and the items to do. */
interface PreparedRun {
  allItems: BenchmarkItem[];
  dataset: DatasetInfo;
  selected: BenchmarkItem[];
  /** Position of each selected item (rows are sorted by it). */
  order: Map<string, number>;
  identity: CheckpointIdentity;
  /** Rows resumed from the checkpoint: summaries and their lines there. */
  resumed: StoredRow[];
  /** Bytes of the resumed checkpoint's whole lines (null: a fresh run). */
  resumedBytes: number | null;
  todo: BenchmarkItem[];
}

/** Load and select the items, and read the checkpoint when resuming. */
async function prepareRun(
  def: BenchmarkDefinition<BenchmarkItem>,
  options: RunOptions,
  paths: RunPaths,
  logger: Logger,
): Promise<PreparedRun> {
  const allItems = await def.loadItems(options, logger);
  const dataset: DatasetInfo = def.describeDataset
    ? await def.describeDataset(options)
    : {
        path: options.dataset,
        sha256: createHash("sha256")
          .update(allItems.map((i) => i.id).join("\n"))
          .digest("hex"),
      };
  const selected = selectItems(allItems, {
    seed: options.seed,
    samples: options.samples,
    shardIndex: options.shard_index,
    numShards: options.num_shards,
  });
  const order = new Map(selected.map((item, i) => [item.id, i]));
  const identity: CheckpointIdentity = {
    benchmark: def.name,
    dataset: dataset.path,
    dataset_sha256: dataset.sha256,
    seed: options.seed,
    agent: options.agent ?? null,
    samples: options.samples ?? null,
    n: options.n,
    k: options.k,
    shard_index: options.shard_index,
    num_shards: options.num_shards,
  };
  const resumed: StoredRow[] = [];
  let resumedBytes: number | null = null;
  if (options.resume) {
    const saved = await readCheckpoint(paths.checkpoint);
    assertSameIdentity(saved.identity, identity, paths.checkpoint);
    if (saved.tornTail) logger.warn({ checkpoint: paths.checkpoint }, "checkpoint's last line was torn; dropped");
    await dropTornTail(paths.checkpoint, saved);
    resumedBytes = saved.validBytes;
    saved.rows.forEach((row, i) => {
      const location = saved.locations[i];
      if (order.has(row.id) && location) resumed.push({ summary: summarizeRow(row), location });
    });
    logger.info({ resumed: resumed.length, checkpoint: paths.checkpoint }, "resuming from checkpoint");
  }
  const done = new Set(resumed.map((r) => r.summary.id));
  const todo = selected.filter((item) => !done.has(item.id));
  return { allItems, dataset, selected, order, identity, resumed, resumedBytes, todo };
}

/**
 * Prepare the run while the sandbox is created: its isolation probe (a few
 * child processes) runs while the dataset is loaded and the items selected.
 * A failure before the sandbox is used closes it.
 */
async function prepareWithSandbox(
  def: BenchmarkDefinition<BenchmarkItem>,
  options: RunOptions,
  deps: RunDependencies,
  paths: RunPaths,
): Promise<{ prepared: PreparedRun; sandboxReady: Promise<Sandbox> }> {
  const { logger } = deps;
  const sandboxReady = (async () => deps.createSandbox(options))();
  sandboxReady.catch(() => {
    /* surfaced where it is awaited */
  });
  try {
    return { prepared: await prepareRun(def, options, paths, logger), sandboxReady };
  } catch (err) {
    // Nothing may outlive the run: wait for the probe, then close what it made.
    await sandboxReady
      .then(
        (sb) => sb.close(),
        () => {},
      )
      .catch((e: unknown) => logger.warn({ err: errorMessage(e) }, "sandbox close failed"));
    throw err;
  }
}

/**
 * When each start-up step of a run ended, ms since the process started
 * (`performance.now()`): `entered` (node, the bundle, the CLI's set-up and the
 * config), `dataset_loaded`, `sandbox_ready` (its isolation probe),
 * `card_checked`, `first_item`. Logged at debug ("start-up"); the bench's cost
 * model reads it.
 */
class StartUpTimes {
  readonly times: Record<string, number> = { entered: Math.round(performance.now()) };
  mark(step: string): void {
    this.times[step] = Math.round(performance.now());
  }
  /** Mark `step` when `done` settles (it is awaited, and its failure handled, elsewhere). */
  when(step: string, done: Promise<unknown>): void {
    const mark = (): void => this.mark(step);
    done.then(mark, mark);
  }
}

/** The outcome of the participant check (its promise never rejects). */
type CheckResult = { failed: false } | { failed: true; err: unknown };

/**
 * The participant's check (its agent card), started at once so it runs while
 * the dataset loads and the sandbox is probed and started; its outcome is
 * applied before the first item ({@link applyParticipantCheck}). `abort`
 * ends it when the run fails before then.
 */
function startParticipantCheck(
  participant: Participant | null,
  signal: AbortSignal | undefined,
): { result: Promise<CheckResult>; abort(): void } {
  const controller = new AbortController();
  const onAbort = (): void => controller.abort(signal?.reason);
  if (signal?.aborted) onAbort();
  else signal?.addEventListener("abort", onAbort, { once: true });
  const result: Promise<CheckResult> = participant?.check
    ? participant.check(controller.signal).then(
        () => ({ failed: false }),
        (err: unknown) => ({ failed: true, err }),
      )
    : Promise.resolve({ failed: false });
  void result.finally(() => signal?.removeEventListener("abort", onAbort));
  return { result, abort: () => controller.abort(new Error("run ended before its first item")) };
}

/**
 * Apply the participant check before the first item: an unreachable
 * participant stops the run (status error). Not applied when the run is
 * already stopped (its first reason stays the reason) or has nothing to do.
 */
async function applyParticipantCheck(check: Promise<CheckResult>, stops: RunStops, todo: number): Promise<void> {
  const outcome = await check;
  if (stops.stoppedBy || todo === 0 || !outcome.failed) return;
  if (outcome.err instanceof InfrastructureError) stops.stopFor(outcome.err);
  else if (!stops.interrupted) throw outcome.err;
}

/** What evaluating the items needs. */
interface ItemRun {
  def: BenchmarkDefinition<BenchmarkItem>;
  options: RunOptions;
  logger: Logger;
  emit: (event: RunnerEvent) => void;
  paths: RunPaths;
  prepared: PreparedRun;
  stops: RunStops;
  checkpoint: CheckpointWriter;
  sandbox: Sandbox;
  participant: Participant | null;
  /** The run's model gateway, when the options ask for one. */
  gateway: AssessmentGateway | undefined;
  /** Scratch space of the benchmark (`<out>/work`). */
  workDir: string;
  /** Rows finished so far (summaries; the full rows are in the checkpoint): resumed ones first. */
  rows: RowStore;
  /** Rows passed so far (resumed ones included). */
  passedSoFar: number;
  /** checkpoint_written events of rows whose write has not landed yet; awaited before the run ends. */
  landings: Set<Promise<void>>;
}

/** One item: evaluate it, record its row, tell the progress. An InfrastructureError stops the run. */
async function evaluateItem(r: ItemRun, item: BenchmarkItem): Promise<void> {
  const { selected, order } = r.prepared;
  const i = order.get(item.id) ?? 0;
  r.emit({ event: "task_started", task_id: item.id, i, total: selected.length });
  const signal = r.stops.itemSignal;
  // With a gateway: this item's own token, in every question it asks, revoked when it ends.
  const grant = r.gateway && r.participant ? r.gateway.openItem(item.id) : undefined;
  const granted = grant && r.participant ? itemParticipant(r.participant, grant.grant) : r.participant;
  // What the participant reports through the Traceability extension, summed over the item's questions.
  const traced = granted ? tracedParticipant(granted) : undefined;
  const participant = traced ? traced.participant : granted;
  let row: ItemResult;
  try {
    row = await r.def.evaluate(item, {
      options: r.options,
      sandbox: r.sandbox,
      participant,
      logger: r.logger,
      signal,
      workDir: r.workDir,
      onTurn: ({ turn, command }) =>
        r.emit({ event: "turn", task_id: item.id, turn, status: commandStatusLine(command) }),
    });
  } catch (err) {
    if (err instanceof InfrastructureError) {
      if (grant) r.gateway?.closeItem(grant.account);
      r.logger.error({ task_id: item.id, code: err.code }, err.message);
      r.stops.stopFor(err);
      return;
    }
    // The contract says evaluate does not throw for item failures; a throw is our bug or infrastructure.
    r.logger.error({ task_id: item.id, err: errorMessage(err) }, "evaluate threw");
    row = {
      id: item.id,
      status: "error",
      passed: false,
      elapsed_seconds: 0,
      failure_mode: "infrastructure_runner",
      error: errorMessage(err),
    };
  }
  if (grant && r.gateway) row = { ...row, measured_usage: r.gateway.closeItem(grant.account) };
  if (row.usage !== undefined && row.usage_source === undefined) row = { ...row, usage_source: "self_reported" };
  const tracedUsage = traced?.total();
  if (tracedUsage) row = { ...row, traceability_usage: tracedUsage };
  if (signal.aborted || row.status === "canceled") return; // unfinished: not recorded
  const { landed, location } = r.checkpoint.add(row);
  r.rows.add(row, location);
  if (row.passed) r.passedSoFar++;
  r.emit({
    event: "task_finished",
    task_id: item.id,
    i,
    status: row.status,
    passed: row.passed,
    elapsed_seconds: row.elapsed_seconds,
    done: r.rows.length,
    total: selected.length,
    passed_so_far: r.passedSoFar,
    ...(!row.passed && typeof row.failure_mode === "string" ? { failure_mode: row.failure_mode } : {}),
  });
  // The lane moves on to its next item; the event follows once a write holding this row landed.
  const landing = landed.then((l) => {
    if (l) r.emit({ event: "checkpoint_written", path: r.paths.checkpoint, done: l.rows });
  });
  r.landings.add(landing);
  const forget = (): boolean => r.landings.delete(landing);
  landing.then(forget, forget); // a failure surfaces where `landings` is awaited
}

/** Evaluate the items still to do (none once the run was stopped), as many at once as the lane plan says. */
async function evaluateItems(r: ItemRun, lanes: LanePlan): Promise<void> {
  r.logger.debug({ items_in_flight: lanes.items, sandbox_calls: lanes.sandboxCalls ?? lanes.items }, "lanes");
  const todo = r.stops.stoppedBy ? [] : r.prepared.todo;
  await runPool(todo, lanes.items, r.stops.itemSignal, (item) => evaluateItem(r, item));
}

/** Without the benchmark's own incremental aggregate: gather the full rows for its `aggregate`. */
function collectingAggregator(def: BenchmarkDefinition<BenchmarkItem>, options: RunOptions): RowAggregator {
  const rows: ItemResult[] = [];
  return { add: (row) => rows.push(row), result: () => def.aggregate(rows, options) };
}

/** The results document and run_metadata.json of a run that finished; emits run_finished. */
/** `run_started`'s note (and a warning) when `samples` asks for more items than the dataset has; {} otherwise. */
function samplesBeyondDataset(
  samples: number | undefined,
  available: number,
  logger: Logger,
): { samples_requested?: number; dataset_items?: number } {
  if (samples === undefined || samples <= available) return {};
  logger.warn(
    { samples, dataset_items: available },
    `samples ${samples} exceeds the dataset's ${available} item(s): all ${available} run`,
  );
  return { samples_requested: samples, dataset_items: available };
}

async function finishRun(
  r: ItemRun,
  startedAt: number,
  sandboxSound: boolean,
  progress: ProgressReporter | undefined,
): Promise<RunOutcome> {
  const { def, options, logger, paths, prepared, sandbox } = r;
  // Sorted copy: rows are in completion order.
  const stored = [...r.rows.rows].sort(
    (a, b) => (prepared.order.get(a.summary.id) ?? 0) - (prepared.order.get(b.summary.id) ?? 0),
  );
  // Sandbox failures the canary put down to the participant carry its label from here on (attribution.ts).
  const sorted = stored.map((s) => attributeRow(s.summary, sandboxSound));
  const verdict = judgeRun(
    stored.map((s) => s.summary),
    options.max_infrastructure_failure_share,
    r.stops.stoppedBy,
    { participantCaused: sandboxSound ? new Set([SANDBOX_FAILURE_MODE]) : new Set() },
  );
  // A stop's reason was logged when it stopped the run: said once, not again here.
  if (verdict.error && !r.stops.stoppedBy)
    logger.error({ code: verdict.error.code }, `run ended with status error: ${verdict.error.message}`);
  const notRun = r.stops.budgetExhausted ? itemsNotRun(prepared, r.rows) : [];
  if (notRun.length > 0)
    logger.warn(
      { time_budget_seconds: options.time_budget_seconds, judged: stored.length, not_run: notRun.length },
      "time budget ran out: the run is partial",
    );
  const head: ResultsHead = {
    schema_version: RESULTS_SCHEMA_VERSION,
    benchmark: def.name,
    run_id: options.run_id,
    status: verdict.status,
    error: verdict.error,
    infrastructure_failures: verdict.infrastructure_failures,
    sandbox_failures_attributed_to_participant: verdict.attributed_to_participant,
    ...(notRun.length > 0 ? { partial: true as const, not_run: notRun } : {}),
    config: recordedConfig(options),
    isolation: { backend: sandbox.backend, level: sandbox.isolation, warnings: [...sandbox.warnings] },
    dataset: prepared.dataset,
  };
  // The full rows stream from the checkpoint into results.json and the aggregate, one at a time.
  const aggregator = def.createAggregator?.(options) ?? collectingAggregator(def, options);
  const usageTotals = new UsageTotals();
  const aggregate = await writeResultsStreaming(
    paths.results,
    head,
    relabelRows(
      readFullRows(paths.checkpoint, stored, (at) => r.checkpoint.unwritten(at)),
      sandboxSound,
    ),
    (row) => {
      aggregator.add(row);
      usageTotals.add(row);
    },
    () => {
      const benchAggregate = aggregator.result();
      // A benchmark that counts its own failure modes (per sample) keeps them; else one count per row.
      const failureModes =
        (benchAggregate["failure_modes"] as Record<string, number> | undefined) ?? countFailureModes(sorted);
      return {
        ...benchAggregate,
        failure_modes: failureModes,
        // The participant's failed replies (counted in the score), shown apart so an operator sees trouble.
        ...(r.participant ? { participant_errors: countParticipantErrors(failureModes) } : {}),
        // Tokens and cost by where each number came from: our gateway's count, the participant's word.
        ...usageTotals.aggregate(),
      };
    },
  );
  // Row summaries (the core keys); results.json holds the full rows.
  const results: ResultsDocument = { ...head, rows: sorted, aggregate };
  await writeRunMetadata(r, startedAt);
  r.emit({
    event: "run_finished",
    status: verdict.status,
    error: verdict.error,
    results_path: paths.results,
    run_metadata_path: paths.run_metadata,
    events_path: paths.events,
    aggregate,
    ...(notRun.length > 0 ? { partial: true, not_run: notRun.length } : {}),
  });
  progress?.close(aggregate);
  const exitCode = verdict.status === "ok" ? 0 : EXIT_INFRASTRUCTURE;
  return { exitCode, interrupted: false, status: verdict.status, error: verdict.error, paths, results };
}

/** The selected items without a row, in selection order: what a budget-stopped run did not run. */
function itemsNotRun(prepared: PreparedRun, rows: RowStore): string[] {
  const judged = new Set(rows.rows.map((row) => row.summary.id));
  return prepared.selected.filter((item) => !judged.has(item.id)).map((item) => item.id);
}

/**
 * Start the run's time budget: when `time_budget_seconds` (from the runner's start, `startedAt`) runs out, the
 * stops end the items. Returns the disarm.
 */
function armTimeBudget(options: RunOptions, startedAt: number, stops: RunStops, deps: RunDependencies): () => void {
  const budget = options.time_budget_seconds;
  if (budget === undefined) return () => {};
  return (deps.budgetTimer ?? budgetTimeout)(Math.max(0, startedAt + budget * 1000 - Date.now()), () => {
    deps.logger.warn(
      { time_budget_seconds: budget },
      "time budget ran out: no new item, the items in flight cancelled",
    );
    stops.exhaustBudget();
  });
}

/** The run_started event: the items selected and resumed, and what start-up left of the time budget. */
function runStartedEvent(
  def: BenchmarkDefinition<BenchmarkItem>,
  options: RunOptions,
  prepared: PreparedRun,
  sandbox: Sandbox,
  startedAt: number,
  logger: Logger,
): RunnerEvent {
  const budget = options.time_budget_seconds;
  return {
    event: "run_started",
    run_id: options.run_id,
    benchmark: def.name,
    total: prepared.selected.length,
    ...samplesBeyondDataset(options.samples, prepared.allItems.length, logger),
    resumed: prepared.resumed.length,
    dataset: prepared.dataset.path,
    isolation: sandbox.isolation,
    ...(budget !== undefined
      ? {
          time_budget_seconds: budget,
          budget_left_seconds: Math.max(0, budget - (Date.now() - startedAt) / 1000),
        }
      : {}),
  };
}

/** The full rows as the rule of attribution reads them once the sandbox was judged (attribution.ts). */
async function* relabelRows(rows: AsyncIterable<ItemResult>, sandboxSound: boolean): AsyncGenerator<ItemResult> {
  for await (const row of rows) yield attributeRow(row, sandboxSound);
}

/** run_metadata.json: host, timings, sandbox, dataset, item counts, config. */
async function writeRunMetadata(r: ItemRun, startedAt: number): Promise<void> {
  const { def, options, paths, prepared, sandbox } = r;
  const rows = r.rows;
  const resumed = new Set(prepared.resumed.map((row) => row.summary.id)).size;
  const finishedAt = Date.now();
  await writeJsonAtomic(paths.run_metadata, {
    schema_version: 1,
    run_id: options.run_id,
    benchmark: def.name,
    ...hostInfo(),
    timings: {
      started_at_unix_seconds: Math.floor(startedAt / 1000),
      finished_at_unix_seconds: Math.floor(finishedAt / 1000),
      elapsed_seconds: (finishedAt - startedAt) / 1000,
    },
    sandbox: { backend: sandbox.backend, isolation: sandbox.isolation, warnings: [...sandbox.warnings] },
    dataset: prepared.dataset,
    agent: options.agent ?? null,
    items: {
      in_dataset: prepared.allItems.length,
      selected: prepared.selected.length,
      resumed,
      evaluated: rows.length - resumed,
    },
    config: recordedConfig(options),
  });
}

/** The run's checkpoint writer: appending to the resumed file, or starting a fresh one. */
function openCheckpoint(options: RunOptions, paths: RunPaths, prepared: PreparedRun, logger: Logger): CheckpointWriter {
  return createCheckpointWriter({
    path: paths.checkpoint,
    runId: options.run_id,
    identity: prepared.identity,
    ...(prepared.resumedBytes !== null
      ? { resumedRows: prepared.resumed.length, resumedBytes: prepared.resumedBytes }
      : {}),
    logger,
    minIntervalMs: CHECKPOINT_MIN_INTERVAL_MS,
  });
}

/** What {@link startRun} opened: the participant (its check under way), the prepared items, the sandbox. */
interface StartedRun {
  participant: Participant | null;
  participantCheck: { result: Promise<CheckResult>; abort(): void };
  prepared: PreparedRun;
  sandbox: Sandbox;
}

/** This start of the runner in workers.jsonl: who judges the rows from here on (worker-log.ts). */
async function recordStart(options: RunOptions, deps: RunDependencies, prepared: PreparedRun): Promise<void> {
  const start = {
    ...(deps.worker ?? workerIdentity({})),
    first_row: prepared.resumed.length,
    started_at_unix_seconds: Math.floor(Date.now() / 1000),
  };
  await recordWorkerStart(options.out, start, prepared.resumedBytes !== null).catch((err: unknown) =>
    deps.logger.warn({ err: errorMessage(err) }, "could not record the worker in workers.jsonl"),
  );
}

/**
 * The run's start-up: steps that do not wait on each other run together — the participant's card check, the
 * dataset load and the sandbox's isolation probe. A failure of the dataset or the sandbox aborts the check and
 * closes the participant before it is thrown.
 */
async function startRun(
  def: BenchmarkDefinition<BenchmarkItem>,
  options: RunOptions,
  deps: RunDependencies,
  paths: RunPaths,
  needsParticipant: boolean,
  startUp: StartUpTimes,
): Promise<StartedRun> {
  let participant: Participant | null = null;
  if (needsParticipant && options.agent) {
    if (!deps.createParticipant) throw new BenchError("E_NO_PARTICIPANT", "no participant factory given to the runner");
    participant = deps.createParticipant({ ...options, agent: options.agent });
  }
  const participantCheck = startParticipantCheck(participant, deps.signal);
  if (participant) startUp.when("card_checked", participantCheck.result);
  try {
    const started = await prepareWithSandbox(def, options, deps, paths);
    startUp.mark("dataset_loaded");
    startUp.when("sandbox_ready", started.sandboxReady);
    const sandbox = await started.sandboxReady;
    await recordStart(options, deps, started.prepared);
    return { participant, participantCheck, prepared: started.prepared, sandbox };
  } catch (err) {
    participantCheck.abort();
    await participantCheck.result;
    await participant?.close().catch(() => {});
    throw err;
  }
}

/** What a benchmark's `warmSandbox` gives the sandbox's warmUp (`true`: nothing beyond starting). */
function warmUpOf(warm: true | SandboxWarmUp): SandboxWarmUp | undefined {
  return warm === true ? undefined : warm;
}

/** The run's own model gateway when the options ask for one (refused when the operator offers none). */
async function openGateway(
  options: RunOptions,
  deps: RunDependencies,
  needsParticipant: boolean,
): Promise<AssessmentGateway | undefined> {
  if (options.model_gateway !== true || !needsParticipant) return undefined;
  if (!deps.modelGateway)
    throw new BenchError(
      "E_GATEWAY_SETTING",
      "model_gateway asks for a model gateway but none is set up: the operator sets A2A_BENCH_MODEL_GATEWAY_UPSTREAM and _PRICES (the green agent: GREEN_MODEL_GATEWAY_*)",
    );
  return startAssessmentGateway(
    deps.modelGateway,
    {
      ...(options.max_cost_per_item_usd !== undefined ? { perItemUsd: options.max_cost_per_item_usd } : {}),
      ...(options.max_cost_per_run_usd !== undefined ? { perRunUsd: options.max_cost_per_run_usd } : {}),
    },
    deps.logger,
  );
}

async function runOpened(
  def: BenchmarkDefinition<BenchmarkItem>,
  options: RunOptions,
  deps: RunDependencies,
  paths: RunPaths,
  emit: (event: RunnerEvent) => void,
): Promise<RunOutcome> {
  const { logger } = deps;
  const startedAt = Date.now();
  const needsParticipant = checkRunnable(def, options);
  const startUp = new StartUpTimes();
  const gateway = await openGateway(options, deps, needsParticipant);
  let started: Awaited<ReturnType<typeof startRun>>;
  try {
    started = await startRun(def, options, deps, paths, needsParticipant, startUp);
  } catch (err) {
    await gateway?.close();
    throw err;
  }
  const { participant, participantCheck, prepared, sandbox } = started;
  const checkpoint = openCheckpoint(options, paths, prepared, logger);
  const lanes = planLanes(def, options, needsParticipant);
  for (const warning of sandbox.warnings) logger.warn({ isolation: sandbox.isolation }, warning);
  const stops = new RunStops(
    deps.signal ?? new AbortController().signal,
    deps.requireFullIsolation && !isFullIsolation(sandbox.isolation)
      ? weakIsolationError(sandbox.isolation, deps.requireFullIsolation.optIn)
      : null,
  );
  if (def.warmSandbox && prepared.todo.length > 0 && !stops.stoppedBy) sandbox.warmUp?.(warmUpOf(def.warmSandbox));
  const r: ItemRun = {
    ...{ def, options, logger, emit, paths, prepared, stops, checkpoint },
    sandbox: lanes.sandboxCalls === null ? sandbox : gateSandbox(sandbox, lanes.sandboxCalls),
    participant,
    gateway,
    workDir: join(options.out, "work"),
    rows: new RowStore(prepared.resumed),
    passedSoFar: prepared.resumed.filter((row) => row.summary.passed).length,
    landings: new Set(),
  };
  let sandboxSound = false;
  const disarmBudget = armTimeBudget(options, startedAt, stops, deps);
  try {
    if (stops.stoppedBy) participantCheck.abort();
    await applyParticipantCheck(participantCheck.result, stops, prepared.todo.length);
    startUp.mark("first_item");
    logger.debug({ ms_since_process_start: startUp.times }, "start-up");
    if (stops.stoppedBy) logger.error({ code: stops.stoppedBy.code }, stops.stoppedBy.message);
    emit(runStartedEvent(def, options, prepared, sandbox, startedAt, logger));
    await evaluateItems(r, lanes);
    // Sandbox failures during the participant's programs: ours only if the sandbox is broken (sandbox-canary.ts).
    if (!stops.interrupted && r.rows.rows.some(({ summary }) => summary.failure_mode === SANDBOX_FAILURE_MODE)) {
      sandboxSound = await sandboxWorks(sandbox);
      logger.info({ sandbox_sound: sandboxSound }, "sandbox canary after sandbox failures");
    }
  } finally {
    disarmBudget();
    stops.dispose();
    await def
      .endRun?.({ options, logger, workDir: r.workDir })
      .catch((err: unknown) => logger.warn({ err: errorMessage(err) }, "benchmark clean-up failed"));
    await sandbox.close().catch((err: unknown) => logger.warn({ err: errorMessage(err) }, "sandbox close failed"));
    await r.participant?.close().catch(() => {});
    await gateway?.close();
  }

  // Write what is pending now (not after the interval), then let the checkpoint_written events out.
  await checkpoint.flush(stops.interrupted);
  await Promise.all(r.landings);
  if (stops.interrupted) {
    logger.warn(
      { done: r.rows.length, total: prepared.selected.length, checkpoint: paths.checkpoint },
      "run stopped; checkpoint written",
    );
    deps.progress?.close();
    return { exitCode: EXIT_INTERRUPTED, interrupted: true, paths };
  }
  return finishRun({ ...r, sandbox }, startedAt, sandboxSound, deps.progress);
}
