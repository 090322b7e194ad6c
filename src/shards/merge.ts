/**
 * Merge the runs of the shards of one assessment into one run: one
 * results.json (rows in dataset order, each with its provenance: shard,
 * worker, engine), one run_metadata.json, one events.jsonl and a merge report
 * (`merge.json`). Whoever ran the shards (local processes, a Swarm job, a
 * Kubernetes Indexed Job, people by hand), the merge trusts only what it can
 * check:
 *
 * - every shard finished (its results.json exists and matches the schema);
 * - the shards are of one assessment: the same checkpoint identity but the
 *   shard index (benchmark, dataset and its sha256, seed, agent, samples, n,
 *   k, num_shards) and the same config but the keys that only say how a shard
 *   ran (run id, shard index, concurrency, resume); anything else differing is
 *   refused with each difference named;
 *   each shard index 0…N-1 given exactly once;
 * - each shard's rows are its checkpoint's, every line verified by its checksum
 *   (checkpoint.ts), and agree with its results.json (same items, same
 *   verdicts);
 * - every item of the selection was judged exactly once: the dataset is read
 *   again (its sha256 must be the shards'), sampled and split as the runner
 *   does (selection.ts), and each shard holds exactly its own items.
 *
 * The aggregate is the benchmark's own, computed over the merged rows as a
 * single run computes it, so a merged run and a single-process run of the same
 * items read the same.
 */
import { readFile, mkdir } from "node:fs/promises";
import { basename, join, resolve } from "node:path";
import { createHash } from "node:crypto";
import type { Logger } from "../util/logger.js";
import { BenchError } from "../util/errors.js";
import { checkAgainst } from "../util/schema.js";
import { writeJsonAtomic, writeFileAtomic } from "../util/atomic-write.js";
import {
  RESULTS_SCHEMA_FILE,
  RESULTS_SCHEMA_VERSION,
  type ResultRow,
  type ResultsAggregate,
  type ResultsDocument,
} from "../results-file/document.js";
import { CHECKPOINT_FILE, identityDifferences, readCheckpoint, type Checkpoint } from "../runner/checkpoint.js";
import { RESULTS_FILE, RUN_METADATA_FILE, runPaths, type RunPaths } from "../runner/run-benchmark.js";
import { resolveRunOptions, type RunOptions } from "../runner/options.js";
import { getBenchmark, offeredInteractions } from "../benchmarks/index.js";
import { sampleItems, shardItems } from "../runner/selection.js";
import { attributeRow } from "../runner/attribution.js";
import { countFailureModes, judgeRun } from "../runner/run-verdict.js";
import { countParticipantErrors } from "../runner/participant-failure.js";
import { writeResultsStreaming, type ResultsHead } from "../runner/results-writer.js";
import { hostInfo } from "../runner/run-metadata.js";
import { readWorkerStarts, starterOfRow, type WorkerStart } from "../runner/worker-log.js";
import type { BenchmarkDefinition, BenchmarkItem } from "../runner/benchmark.js";

export const MERGE_REPORT_FILE = "merge.json";

/** Config keys that only say how one shard ran; they may differ between the shards of one assessment. */
export const PER_SHARD_CONFIG_KEYS: ReadonlySet<string> = new Set([
  "run_id",
  "shard_index",
  "resume",
  "concurrency",
  "participant_concurrency",
  "shards",
  "shard_engine",
]);

/** Typed failure of a merge. */
export class MergeError extends BenchError {
  constructor(
    code:
      | "E_MERGE_UNFINISHED"
      | "E_MERGE_MISMATCH"
      | "E_MERGE_INCOMPLETE"
      | "E_MERGE_CORRUPT"
      | "E_MERGE_USAGE"
      | "E_MERGE_BUNDLE",
    message: string,
  ) {
    super(code, message);
  }
}

/** Where a row was judged. */
export interface RowProvenance {
  shard: number;
  worker: string;
  engine: string;
}

/** One shard as the merge report lists it. */
export interface MergedShard {
  index: number;
  dir: string;
  run_id: string;
  rows: number;
  status: "ok" | "error";
  /** Each start of the runner on the shard (a re-run after a death is a second start). */
  starts: WorkerStart[];
}

/** `merge.json`. */
export interface MergeReport {
  schema_version: 1;
  run_id: string;
  benchmark: string;
  num_shards: number;
  /** Items of the selection; each judged exactly once (checked). */
  items: number;
  judged_exactly_once: true;
  shards: MergedShard[];
}

export interface MergeOptions {
  /** Shard run directories, in any order. */
  dirs: readonly string[];
  /** Where the merged run is written (created). */
  out: string;
  /** The merged run's id; default the first shard's config run id with its `-shard-<i>` suffix removed. */
  runId?: string;
  logger: Logger;
}

export interface MergeOutcome {
  paths: RunPaths;
  report: MergeReport;
  /** The merged results document, as written. */
  results: ResultsDocument;
}

/** One shard run directory, read and verified. */
interface ShardRun {
  dir: string;
  checkpoint: Checkpoint;
  results: ResultsDocument;
  starts: WorkerStart[];
  /** The checkpoint's rows as results.json reads them (sandbox attribution applied), with their provenance. */
  rows: ResultRow[];
}

async function readShard(dir: string): Promise<ShardRun> {
  const resultsPath = join(dir, RESULTS_FILE);
  let text: string;
  try {
    text = await readFile(resultsPath, "utf8");
  } catch {
    throw new MergeError(
      "E_MERGE_UNFINISHED",
      `shard ${dir} has no ${RESULTS_FILE}: its run did not finish; continue it with \`a2a-bench run <benchmark> --resume --out ${dir}\` (same settings) and merge again`,
    );
  }
  let results: ResultsDocument;
  try {
    results = JSON.parse(text) as ResultsDocument;
  } catch {
    throw new MergeError("E_MERGE_CORRUPT", `shard ${dir}: ${RESULTS_FILE} is not JSON`);
  }
  const problems = checkAgainst(RESULTS_SCHEMA_FILE, results);
  if (problems.length > 0)
    throw new MergeError("E_MERGE_CORRUPT", `shard ${dir}: ${RESULTS_FILE} does not match its schema: ${problems[0]}`);
  let checkpoint: Checkpoint;
  try {
    checkpoint = await readCheckpoint(join(dir, CHECKPOINT_FILE));
  } catch (err) {
    throw new MergeError("E_MERGE_CORRUPT", `shard ${dir}: ${(err as Error).message}`);
  }
  if (checkpoint.tornTail)
    throw new MergeError("E_MERGE_CORRUPT", `shard ${dir}: its checkpoint ends in a torn line, yet the run finished`);
  const starts = await readWorkerStarts(dir);
  const sound = (results.sandbox_failures_attributed_to_participant ?? 0) > 0;
  const shard = checkpoint.identity.shard_index;
  const rows = checkpoint.rows.map((row, k) => {
    const by = starterOfRow(starts, k);
    const provenance: RowProvenance = { shard, worker: by?.worker ?? "unknown", engine: by?.engine ?? "unknown" };
    return { ...attributeRow(row, sound), provenance };
  });
  agreeWithResults(dir, rows, results);
  return { dir, checkpoint, results, starts, rows };
}

/** The checkpoint's rows must be results.json's: the same items with the same verdicts. */
function agreeWithResults(dir: string, rows: readonly ResultRow[], results: ResultsDocument): void {
  const written = new Map(results.rows.map((r) => [r.id, r]));
  const problems: string[] = [];
  if (written.size !== rows.length)
    problems.push(`${rows.length} row(s) in the checkpoint, ${written.size} in ${RESULTS_FILE}`);
  for (const row of rows) {
    const w = written.get(row.id);
    if (!w) problems.push(`${row.id} is in the checkpoint but not in ${RESULTS_FILE}`);
    else if (w.status !== row.status || w.passed !== row.passed)
      problems.push(
        `${row.id}: checkpoint ${row.status}/${String(row.passed)}, ${RESULTS_FILE} ${w.status}/${String(w.passed)}`,
      );
  }
  if (problems.length > 0)
    throw new MergeError(
      "E_MERGE_CORRUPT",
      `shard ${dir}: its checkpoint and its ${RESULTS_FILE} disagree (${problems.slice(0, 5).join("; ")})`,
    );
}

const shown = (v: unknown): string => JSON.stringify(v ?? null);

/** Every difference of `b` from `a` that makes them shards of different assessments. */
export function shardDifferences(a: ShardRunLike, b: ShardRunLike): string[] {
  const diffs = identityDifferences(
    { ...a.checkpoint.identity, shard_index: 0 },
    { ...b.checkpoint.identity, shard_index: 0 },
  ).map((d) => d.replace(": checkpoint ", ": ").replace(", now ", " vs "));
  const keys = new Set([...Object.keys(a.results.config), ...Object.keys(b.results.config)]);
  for (const key of [...keys].sort()) {
    if (PER_SHARD_CONFIG_KEYS.has(key)) continue;
    if (key in a.checkpoint.identity) continue; // said above
    const va = shown(a.results.config[key]);
    const vb = shown(b.results.config[key]);
    if (va !== vb) diffs.push(`${key}: ${va} vs ${vb}`);
  }
  return diffs;
}

/** What {@link shardDifferences} reads of a shard. */
export interface ShardRunLike {
  checkpoint: Pick<Checkpoint, "identity">;
  results: Pick<ResultsDocument, "config">;
}

/** Refuse shards of different assessments, and a shard set that is not 0…N-1 once each. */
function checkShardSet(shards: readonly ShardRun[]): void {
  const [first, ...rest] = shards;
  if (!first) throw new MergeError("E_MERGE_USAGE", "no shard directory given");
  for (const s of rest) {
    const diffs = shardDifferences(first, s);
    if (diffs.length > 0)
      throw new MergeError(
        "E_MERGE_MISMATCH",
        `refusing to merge: ${s.dir} is not a shard of the same assessment as ${first.dir} (${diffs.join("; ")})`,
      );
  }
  const n = first.checkpoint.identity.num_shards;
  const byIndex = new Map<number, string[]>();
  for (const s of shards) {
    const i = s.checkpoint.identity.shard_index;
    byIndex.set(i, [...(byIndex.get(i) ?? []), s.dir]);
  }
  const twice = [...byIndex].filter(([, dirs]) => dirs.length > 1);
  if (twice.length > 0)
    throw new MergeError(
      "E_MERGE_MISMATCH",
      `refusing to merge: ${twice.map(([i, dirs]) => `shard ${i} given ${dirs.length} times (${dirs.join(", ")})`).join("; ")}`,
    );
  const missing = Array.from({ length: n }, (_, i) => i).filter((i) => !byIndex.has(i));
  if (missing.length > 0)
    throw new MergeError(
      "E_MERGE_INCOMPLETE",
      `refusing to merge: shard(s) ${missing.join(", ")} of ${n} missing (given: ${[...byIndex.keys()].sort((a, b) => a - b).join(", ")})`,
    );
}

/** Read the dataset again and check each shard holds exactly its items, each judged once; the items in order. */
async function expectedItems(
  def: BenchmarkDefinition<BenchmarkItem>,
  options: RunOptions,
  shards: readonly ShardRun[],
  logger: Logger,
): Promise<string[]> {
  const all = await def.loadItems(options, logger);
  const dataset = def.describeDataset
    ? await def.describeDataset(options)
    : {
        path: options.dataset,
        sha256: createHash("sha256")
          .update(all.map((i) => i.id).join("\n"))
          .digest("hex"),
      };
  const identity = shards[0]?.checkpoint.identity;
  if (identity && dataset.sha256 !== identity.dataset_sha256)
    throw new MergeError(
      "E_MERGE_MISMATCH",
      `refusing to merge: the dataset ${dataset.path} is not the one the shards ran (sha256 ${dataset.sha256}, shards ${identity.dataset_sha256})`,
    );
  const selected = sampleItems(all, options.seed, options.samples);
  const n = options.num_shards;
  const problems: string[] = [];
  const seen = new Map<string, number>();
  for (const s of shards) {
    const i = s.checkpoint.identity.shard_index;
    const own = new Set(shardItems(selected, i, n).map((item) => item.id));
    const judged = new Set<string>();
    for (const row of s.rows) {
      if (judged.has(row.id)) problems.push(`${row.id} judged twice in shard ${i}`);
      if (seen.has(row.id)) problems.push(`${row.id} judged in shards ${seen.get(row.id)} and ${i}`);
      if (!own.has(row.id)) problems.push(`${row.id} is not an item of shard ${i}`);
      judged.add(row.id);
      seen.set(row.id, i);
    }
    const unjudged = [...own].filter((id) => !judged.has(id));
    if (unjudged.length > 0)
      problems.push(
        `shard ${i} (${s.dir}) did not judge ${unjudged.length} item(s): ${unjudged.slice(0, 5).join(", ")}${unjudged.length > 5 ? ", …" : ""}`,
      );
  }
  if (problems.length > 0)
    throw new MergeError(
      "E_MERGE_INCOMPLETE",
      `refusing to merge: not every item was judged exactly once (${problems.slice(0, 8).join("; ")}${problems.length > 8 ? `; and ${problems.length - 8} more` : ""})`,
    );
  return selected.map((item) => item.id);
}

/** The merged run's id: given, else the first shard's without its `-shard-<i>` suffix, plus `-merged` when it had none. */
function mergedRunId(given: string | undefined, first: ShardRun): string {
  if (given) return given;
  const configured = first.results.config["run_id"];
  const id = typeof configured === "string" ? configured : first.results.run_id;
  const base = id.replace(/-shard-\d+$/, "");
  return base === id ? `${id}-merged` : base;
}

/** The aggregate of the merged rows, as the runner computes a single run's. */
function aggregateOf(
  def: BenchmarkDefinition<BenchmarkItem>,
  options: RunOptions,
  rows: readonly ResultRow[],
): () => ResultsAggregate {
  return () => {
    const aggregator = def.createAggregator?.(options);
    let bench: Record<string, unknown>;
    if (aggregator) {
      for (const row of rows) aggregator.add(row);
      bench = aggregator.result();
    } else bench = def.aggregate([...rows], options);
    const failureModes = (bench["failure_modes"] as Record<string, number> | undefined) ?? countFailureModes(rows);
    const asked = def.needsParticipant(options) && options.agent !== undefined;
    return {
      ...bench,
      failure_modes: failureModes,
      ...(asked ? { participant_errors: countParticipantErrors(failureModes) } : {}),
    };
  };
}

async function readJson(path: string): Promise<Record<string, unknown> | null> {
  try {
    return JSON.parse(await readFile(path, "utf8")) as Record<string, unknown>;
  } catch {
    return null;
  }
}

/** The run's timings: the earliest shard start and the latest shard end. */
async function timings(shards: readonly ShardRun[]): Promise<Record<string, number>> {
  let started = Infinity;
  let finished = 0;
  for (const s of shards) {
    const meta = await readJson(join(s.dir, RUN_METADATA_FILE));
    const t = (meta?.["timings"] ?? {}) as Record<string, number>;
    started = Math.min(started, t["started_at_unix_seconds"] ?? s.checkpoint.created_at_unix_seconds);
    finished = Math.max(finished, t["finished_at_unix_seconds"] ?? 0);
  }
  if (!Number.isFinite(started)) started = finished;
  return {
    started_at_unix_seconds: started,
    finished_at_unix_seconds: finished,
    elapsed_seconds: Math.max(0, finished - started),
  };
}

/** The merged document's head: the verdict over every row (a shard's error stays the run's), isolation, config. */
function mergedHead(
  shards: readonly ShardRun[],
  rows: readonly ResultRow[],
  runId: string,
  runOptions: RunOptions,
): ResultsHead {
  const first = shards[0] as ShardRun;
  const { shard_index: _i, ...commonConfig } = first.results.config;
  const shardError = shards.find((s) => s.results.status === "error");
  const verdict = judgeRun(rows, runOptions.max_infrastructure_failure_share);
  const error = shardError?.results.error
    ? {
        code: shardError.results.error.code,
        message: `shard ${shardError.checkpoint.identity.shard_index}: ${shardError.results.error.message}`,
      }
    : verdict.error;
  const levels = new Set(shards.map((s) => s.results.isolation.level));
  const warnings = [...new Set(shards.flatMap((s) => s.results.isolation.warnings))];
  if (levels.size > 1)
    warnings.push(
      `the shards ran at different isolation levels: ${shards.map((s) => `shard ${s.checkpoint.identity.shard_index} ${s.results.isolation.level}`).join(", ")}`,
    );
  return {
    schema_version: RESULTS_SCHEMA_VERSION,
    benchmark: first.results.benchmark,
    run_id: runId,
    status: error ? "error" : "ok",
    error,
    infrastructure_failures: verdict.infrastructure_failures,
    sandbox_failures_attributed_to_participant: shards.reduce(
      (n, s) => n + (s.results.sandbox_failures_attributed_to_participant ?? 0),
      0,
    ),
    config: { ...commonConfig, run_id: runId },
    isolation: { ...first.results.isolation, warnings },
    dataset: first.results.dataset,
  };
}

/** merge.json, run_metadata.json and events.jsonl of the merged run. */
async function writeMergeFiles(
  paths: RunPaths,
  shards: readonly ShardRun[],
  head: ResultsHead,
  aggregate: ResultsAggregate,
  items: number,
  runOptions: RunOptions,
): Promise<MergeReport> {
  const report: MergeReport = {
    schema_version: 1,
    run_id: head.run_id,
    benchmark: head.benchmark,
    num_shards: runOptions.num_shards,
    items,
    judged_exactly_once: true,
    shards: shards.map((s) => ({
      index: s.checkpoint.identity.shard_index,
      dir: s.dir,
      run_id: s.results.run_id,
      rows: s.rows.length,
      status: s.results.status,
      starts: s.starts,
    })),
  };
  await writeJsonAtomic(join(paths.out, MERGE_REPORT_FILE), report);
  const times = await timings(shards);
  await writeJsonAtomic(paths.run_metadata, {
    schema_version: 1,
    run_id: head.run_id,
    benchmark: head.benchmark,
    ...hostInfo(),
    timings: times,
    sandbox: head.isolation,
    dataset: head.dataset,
    agent: runOptions.agent ?? null,
    items: { selected: items, evaluated: items },
    shards: report.shards.map(({ index, dir, run_id, rows: n }) => ({ index, dir: basename(dir), run_id, rows: n })),
    config: head.config,
  });
  const finished = {
    ts: times["finished_at_unix_seconds"],
    event: "run_finished",
    status: head.status,
    error: head.error,
    results_path: paths.results,
    run_metadata_path: paths.run_metadata,
    events_path: paths.events,
    aggregate,
    merged_shards: shards.length,
  };
  await writeFileAtomic(paths.events, JSON.stringify(finished) + "\n");
  return report;
}

/** The rows as an async stream (what the results writer reads). */
async function* streamOf(rows: readonly ResultRow[]): AsyncGenerator<ResultRow> {
  for (const row of rows) yield await Promise.resolve(row);
}

/** Merge the shard runs in `dirs` into `out` (see the module note). Throws MergeError naming what is wrong. */
export async function mergeShards(options: MergeOptions): Promise<MergeOutcome> {
  const out = resolve(options.out);
  const dirs = options.dirs.map((d) => resolve(d));
  if (dirs.length === 0) throw new MergeError("E_MERGE_USAGE", "no shard directory given");
  if (dirs.includes(out)) throw new MergeError("E_MERGE_USAGE", `the output directory ${out} is one of the shards`);
  const shards: ShardRun[] = [];
  for (const dir of dirs) shards.push(await readShard(dir));
  checkShardSet(shards);
  shards.sort((a, b) => a.checkpoint.identity.shard_index - b.checkpoint.identity.shard_index);
  const first = shards[0] as ShardRun;
  const runId = mergedRunId(options.runId, first);
  const runOptions = resolveRunOptions(offeredInteractions, { ...first.results.config, shard_index: 0 }, { out });
  const def = await getBenchmark(first.results.benchmark);
  const order = await expectedItems(def, runOptions, shards, options.logger);
  const position = new Map(order.map((id, i) => [id, i]));
  const rows = shards.flatMap((s) => s.rows).sort((a, b) => (position.get(a.id) ?? 0) - (position.get(b.id) ?? 0));
  const head = mergedHead(shards, rows, runId, runOptions);
  await mkdir(out, { recursive: true });
  const paths = runPaths(out);
  const aggregate = await writeResultsStreaming(
    paths.results,
    head,
    streamOf(rows),
    () => {},
    aggregateOf(def, runOptions, rows),
  );
  const report = await writeMergeFiles(paths, shards, head, aggregate, order.length, runOptions);
  options.logger.info({ out, shards: shards.length, items: order.length }, "shards merged");
  return { paths, report, results: { ...head, rows, aggregate } };
}
