/**
 * One line of the runs view: what a run is (benchmark, participant, date),
 * how it ended (status, headline score), how it was isolated and how many
 * items it holds. Identity and progress come from the small files
 * (run_metadata.json, the end of events.jsonl, checkpoint.jsonl's header);
 * the verdict — status, error, headline score, items done and passed — of a
 * finished run comes from results.json alone, never from events.jsonl's
 * run_finished or task_finished lines (which need not agree with it). What a
 * summary needs of results.json is kept per file version (device, inode,
 * size, mtime), so listing many large runs parses each results file once.
 */
import { basename } from "node:path";
import { readdir } from "node:fs/promises";
import { CHECKPOINT_FILE } from "../runner/checkpoint.js";
import { EVENTS_FILE, RESULTS_FILE, RUN_METADATA_FILE } from "../runner/run-benchmark.js";
import {
  fileTime,
  openRunFile,
  readJsonFile,
  readJsonQuiet,
  readJsonlFile,
  readJsonlQuiet,
  RunFileError,
} from "./run-files.js";
import type { RunRef } from "./run-dirs.js";
import { errorMessage } from "../util/errors.js";

/** A run without results.json whose files changed this recently is shown as running (ms). */
export const RUNNING_WINDOW_MS = 5 * 60 * 1000;
/** results.json summaries kept at most (one per file version). */
const RESULTS_FACTS_CACHE = 256;

export type RunState = "ok" | "error" | "running" | "incomplete";

export interface RunSummary {
  key: string;
  run_id: string;
  benchmark: string | null;
  /** The participant's URL, or the predictions file scored instead. */
  participant: string | null;
  /** Unix seconds. */
  started_at: number | null;
  finished_at: number | null;
  status: RunState;
  error: { code: string; message: string } | null;
  headline: { label: string; value: number | null } | null;
  isolation: { backend: string | null; level: string; warnings: string[] } | null;
  /** Done and passed are counted from `counts_from`: results.json once it exists, else the events. */
  items: { selected: number | null; done: number; passed: number; counts_from: "results.json" | "events.jsonl" };
  /** The run's own files present in its directory. */
  files: string[];
  /** events.jsonl ended mid-line (being written) / had bad lines. */
  events: { partial_tail: boolean; bad_lines: number } | null;
}

type Obj = Record<string, unknown>;
const obj = (v: unknown): Obj => (typeof v === "object" && v !== null && !Array.isArray(v) ? (v as Obj) : {});
const str = (v: unknown): string | null => (typeof v === "string" ? v : null);
const num = (v: unknown): number | null => (typeof v === "number" && Number.isFinite(v) ? v : null);

/** The score a run is known by: pass@1 (HumanEval), else accuracy, else safety. */
export function headlineOf(aggregate: unknown): RunSummary["headline"] {
  const agg = obj(aggregate);
  const pak = obj(agg["pass_at_k"]);
  if ("pass@1" in pak) return { label: "pass@1", value: num(pak["pass@1"]) };
  for (const label of ["accuracy", "safety"])
    if (label in agg && agg[label] !== undefined) return { label, value: num(agg[label]) };
  return null;
}

/** The participant of a run as shown: its URL, else the predictions file it scored. */
function participantOf(config: Obj, agent: unknown): string | null {
  const url = str(agent) ?? str(config["agent"]);
  if (url) return url;
  const predictions = str(config["predictions"]);
  return predictions ? `predictions: ${basename(predictions)}` : null;
}

interface EventFacts {
  started: Obj | null;
  finished: Obj | null;
  firstTs: number | null;
  done: number;
  passed: number;
  /** Seconds per finished item, from its last task_finished event. */
  times: number[];
}

function eventFacts(records: unknown[]): EventFacts {
  const facts: EventFacts = { started: null, finished: null, firstTs: null, done: 0, passed: 0, times: [] };
  const last = new Map<string, boolean>();
  const times = new Map<string, number>();
  for (const r of records) {
    const e = obj(r);
    facts.firstTs ??= num(e["ts"]);
    if (e["event"] === "run_started") facts.started = e;
    else if (e["event"] === "run_finished") facts.finished = e;
    else if (e["event"] === "task_finished" && typeof e["task_id"] === "string") {
      last.set(e["task_id"], e["passed"] === true);
      const t = num(e["elapsed_seconds"]);
      if (t !== null) times.set(e["task_id"], t);
    }
  }
  facts.times = [...times.values()];
  facts.done = last.size;
  for (const p of last.values()) if (p) facts.passed++;
  return facts;
}

/** What a summary takes from results.json: the run's verdict. */
interface ResultsFacts {
  run_id: string | null;
  benchmark: string | null;
  status: string | null;
  error: Obj;
  aggregate: Obj | null;
  config: Obj;
  isolation: Obj;
  rows: number;
  passed: number;
}

const factsCache = new Map<string, ResultsFacts>();

/** The verdict of a finished run from its results.json (throws RunFileError when it cannot be read). */
export async function readResultsFacts(dir: string): Promise<ResultsFacts> {
  const opened = await openRunFile(dir, RESULTS_FILE);
  if (!opened) throw new RunFileError(RESULTS_FILE, "vanished while being read");
  const { stats } = opened;
  await opened.handle.close();
  const version = `${dir}\0${stats.dev}:${stats.ino}:${stats.size}:${stats.mtimeMs}`;
  const known = factsCache.get(version);
  if (known) return known;
  const results = await readJsonFile(dir, RESULTS_FILE);
  if (typeof results !== "object" || results === null || Array.isArray(results))
    throw new RunFileError(RESULTS_FILE, "not a results object");
  const r = results as Obj;
  const rows = Array.isArray(r["rows"]) ? (r["rows"] as unknown[]) : [];
  const facts: ResultsFacts = {
    run_id: str(r["run_id"]),
    benchmark: str(r["benchmark"]),
    status:
      r["status"] === undefined ? null : typeof r["status"] === "string" ? r["status"] : JSON.stringify(r["status"]),
    error: obj(r["error"]),
    aggregate: typeof r["aggregate"] === "object" && r["aggregate"] !== null ? obj(r["aggregate"]) : null,
    config: obj(r["config"]),
    isolation: obj(r["isolation"]),
    rows: rows.filter((x) => typeof obj(x)["id"] === "string").length,
    passed: rows.filter((x) => typeof obj(x)["id"] === "string" && obj(x)["passed"] === true).length,
  };
  if (factsCache.size >= RESULTS_FACTS_CACHE) factsCache.delete(factsCache.keys().next().value!);
  factsCache.set(version, facts);
  return facts;
}

/**
 * What the run view draws before the run's rows arrive: the summary, the
 * aggregate (from the run_finished event) and each item's time (from the
 * task_finished events) — all from the small files, so a run of any size
 * paints at once while its table is read.
 */
export interface RunHead {
  summary: RunSummary;
  aggregate: Obj | null;
  item_times: number[];
}

export async function readRunHead(ref: RunRef): Promise<RunHead> {
  const events = await readJsonlQuiet(ref.dir, EVENTS_FILE);
  const facts = eventFacts(events?.records ?? []);
  let aggregate: Obj | null = null;
  if ((await fileTime(ref.dir, RESULTS_FILE)) !== null)
    aggregate = await readResultsFacts(ref.dir).then(
      (r) => r.aggregate,
      () => null,
    );
  return { summary: await summarizeRun(ref), aggregate, item_times: facts.times };
}

/** The summary of the run `ref` (see the module note). */
export async function summarizeRun(ref: RunRef, now = Date.now()): Promise<RunSummary> {
  const names = await readdir(ref.dir).catch(() => [] as string[]);
  const meta = obj(await readJsonQuiet(ref.dir, RUN_METADATA_FILE));
  const events = await readJsonlQuiet(ref.dir, EVENTS_FILE);
  const facts = eventFacts(events?.records ?? []);
  const resultsTime = await fileTime(ref.dir, RESULTS_FILE);
  let results: ResultsFacts | null = null;
  let unreadable: string | null = null;
  if (resultsTime !== null)
    results = await readResultsFacts(ref.dir).catch((err: unknown) => ((unreadable = errorMessage(err)), null));
  // The checkpoint's header line (the first of checkpoint.jsonl) holds the run's identity.
  const checkpoint =
    resultsTime === null
      ? obj((await readJsonlFile(ref.dir, CHECKPOINT_FILE).catch(() => null))?.records[0] ?? null)
      : {};
  const identity = obj(checkpoint["identity"]);
  // A finished run is described by its results.json first (what it scored is what it says it ran).
  const config = results ? results.config : obj(meta["config"]);
  const timings = obj(meta["timings"]);
  const sandbox = results ? results.isolation : obj(meta["sandbox"]);
  const started = facts.started ?? {};
  const level = str(sandbox["isolation"]) ?? str(sandbox["level"]) ?? str(started["isolation"]);
  const latest = Math.max(events?.mtimeMs ?? 0, (await fileTime(ref.dir, CHECKPOINT_FILE)) ?? 0);
  const status: RunState =
    resultsTime !== null
      ? results !== null && (results.status === "ok" || results.status === null)
        ? "ok"
        : "error"
      : now - latest < RUNNING_WINDOW_MS
        ? "running"
        : "incomplete";
  // A status that is neither ok nor error (nor absent, as in results files older than it) is no pass.
  const oddStatus =
    results && results.status !== null && results.status !== "ok" && results.status !== "error"
      ? { code: "E_VIEW_RUN_FILE", message: `results.json: status "${results.status}" is neither ok nor error` }
      : null;
  const error: Obj =
    unreadable !== null ? { code: "E_VIEW_RUN_FILE", message: unreadable } : (oddStatus ?? results?.error ?? {});
  const items = obj(meta["items"]);
  return {
    key: ref.key,
    run_id: results?.run_id ?? str(meta["run_id"]) ?? str(started["run_id"]) ?? basename(ref.dir),
    benchmark: results?.benchmark ?? str(meta["benchmark"]) ?? str(started["benchmark"]) ?? str(identity["benchmark"]),
    participant: participantOf(config, results ? null : (meta["agent"] ?? identity["agent"])),
    started_at: num(timings["started_at_unix_seconds"]) ?? facts.firstTs,
    finished_at: num(timings["finished_at_unix_seconds"]),
    status,
    error: status === "error" ? { code: str(error["code"]) ?? "?", message: str(error["message"]) ?? "" } : null,
    // Only results.json scores a run: a run without it (running, or stopped) has no headline yet.
    headline: status === "ok" && results ? headlineOf(results.aggregate) : null,
    isolation: level
      ? {
          backend: str(sandbox["backend"]),
          level,
          warnings: Array.isArray(sandbox["warnings"]) ? sandbox["warnings"].filter((w) => typeof w === "string") : [],
        }
      : null,
    items: {
      selected: num(items["selected"]) ?? num(started["total"]),
      done: resultsTime !== null ? (results?.rows ?? 0) : facts.done,
      passed: resultsTime !== null ? (results?.passed ?? 0) : facts.passed,
      counts_from: resultsTime !== null ? "results.json" : "events.jsonl",
    },
    files: names.filter((n) => n.endsWith(".json") || n.endsWith(".jsonl")).sort(),
    events: events ? { partial_tail: events.partialTail, bad_lines: events.badLines } : null,
  };
}
