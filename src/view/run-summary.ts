/**
 * One line of the runs view: what a run is (benchmark, participant, date),
 * how it ended (status, headline score), how it was isolated and how many
 * items it holds — from the small files (run_metadata.json, the end of
 * events.jsonl, checkpoint.json's identity) so listing many large runs stays
 * cheap. results.json is parsed only when those do not say.
 */
import { basename } from "node:path";
import { readdir, stat } from "node:fs/promises";
import { join } from "node:path";
import { CHECKPOINT_FILE } from "../runner/checkpoint.js";
import { EVENTS_FILE, RESULTS_FILE, RUN_METADATA_FILE } from "../runner/run-benchmark.js";
import { fileTime, readJsonQuiet, readJsonlFile } from "./run-files.js";
import type { RunRef } from "./run-dirs.js";

/** A run without results.json whose files changed this recently is shown as running (ms). */
export const RUNNING_WINDOW_MS = 5 * 60 * 1000;
/** results.json is parsed for a summary only below this size (bytes); larger runs say it in run_finished. */
const SUMMARY_RESULTS_MAX_BYTES = 16 * 1024 * 1024;

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
  items: { selected: number | null; done: number; passed: number };
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
  const events = await readJsonlFile(ref.dir, EVENTS_FILE);
  const facts = eventFacts(events?.records ?? []);
  const aggregate = facts.finished ? obj(facts.finished["aggregate"]) : null;
  return { summary: await summarizeRun(ref), aggregate, item_times: facts.times };
}

/** The summary of the run `ref` (see the module note). */
export async function summarizeRun(ref: RunRef, now = Date.now()): Promise<RunSummary> {
  const names = await readdir(ref.dir).catch(() => [] as string[]);
  const meta = obj(await readJsonQuiet(ref.dir, RUN_METADATA_FILE));
  const events = await readJsonlFile(ref.dir, EVENTS_FILE);
  const facts = eventFacts(events?.records ?? []);
  const resultsTime = await fileTime(ref.dir, RESULTS_FILE);
  let results: Obj = {};
  const finished = facts.finished ?? {};
  if (resultsTime !== null && !facts.finished) {
    const { size } = await stat(join(ref.dir, RESULTS_FILE));
    if (size <= SUMMARY_RESULTS_MAX_BYTES) results = obj(await readJsonQuiet(ref.dir, RESULTS_FILE));
  }
  const checkpoint = resultsTime === null ? obj(await readJsonQuiet(ref.dir, CHECKPOINT_FILE)) : {};
  const identity = obj(checkpoint["identity"]);
  const config = obj(meta["config"] ?? results["config"]);
  const timings = obj(meta["timings"]);
  const sandbox = obj(meta["sandbox"] ?? results["isolation"]);
  const started = facts.started ?? {};
  const level = str(sandbox["isolation"]) ?? str(sandbox["level"]) ?? str(started["isolation"]);
  const latest = Math.max(events?.mtimeMs ?? 0, (await fileTime(ref.dir, CHECKPOINT_FILE)) ?? 0);
  const status: RunState =
    resultsTime !== null
      ? (str(finished["status"]) ?? str(results["status"])) === "error"
        ? "error"
        : "ok"
      : now - latest < RUNNING_WINDOW_MS
        ? "running"
        : "incomplete";
  const error = obj(finished["error"] ?? results["error"]);
  const items = obj(meta["items"]);
  const resultRows = Array.isArray(results["rows"]) ? (results["rows"] as unknown[]) : null;
  return {
    key: ref.key,
    run_id: str(meta["run_id"]) ?? str(started["run_id"]) ?? str(results["run_id"]) ?? basename(ref.dir),
    benchmark:
      str(meta["benchmark"]) ?? str(started["benchmark"]) ?? str(results["benchmark"]) ?? str(identity["benchmark"]),
    participant: participantOf(config, meta["agent"] ?? identity["agent"]),
    started_at: num(timings["started_at_unix_seconds"]) ?? facts.firstTs,
    finished_at: num(timings["finished_at_unix_seconds"]),
    status,
    error: status === "error" ? { code: str(error["code"]) ?? "?", message: str(error["message"]) ?? "" } : null,
    headline: headlineOf(finished["aggregate"] ?? results["aggregate"]),
    isolation: level
      ? {
          backend: str(sandbox["backend"]),
          level,
          warnings: Array.isArray(sandbox["warnings"]) ? sandbox["warnings"].filter((w) => typeof w === "string") : [],
        }
      : null,
    items: {
      selected: num(items["selected"]) ?? num(started["total"]),
      done: resultRows?.length ?? facts.done,
      passed: resultRows ? resultRows.filter((r) => obj(r)["passed"] === true).length : facts.passed,
    },
    files: names.filter((n) => n.endsWith(".json") || n.endsWith(".jsonl")).sort(),
    events: events ? { partial_tail: events.partialTail, bad_lines: events.badLines } : null,
  };
}
