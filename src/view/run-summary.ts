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
import { BUNDLE_FILE, RUNNER_CONFIG_FILE, type RunRef } from "./run-dirs.js";
import { errorMessage } from "../util/errors.js";

/** A run without results.json whose files changed this recently is shown as running (ms). */
export const RUNNING_WINDOW_MS = 5 * 60 * 1000;
/** results.json summaries kept at most (one per file version). */
const RESULTS_FACTS_CACHE = 256;

export type RunState = "ok" | "error" | "running" | "incomplete";

/** A run's headline score: its benchmark's own metric, with a 95 % interval when one can be given. */
export interface Headline {
  label: string;
  /** The aggregate's key the value was read from. */
  key: string;
  value: number | null;
  /** 95 % interval: the results' own when they carry one, else Wilson's over `n` (rates only). */
  ci: { low: number; high: number; method: string } | null;
  /** What the rate is over (items, tasks), when known. */
  n: number | null;
}

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
  headline: Headline | null;
  /** The run's interaction mode (config.interaction; single_shot when the config predates it). */
  interaction: string | null;
  /** The data the run read: its path (or `sample`) and sha256. */
  dataset: { path: string; sha256: string | null } | null;
  /** Wall-clock seconds of the run (run_metadata.json's timings), when known. */
  wall_seconds: number | null;
  /** Cost measured by the harness (USD), when the results carry one; never the participant's word. */
  cost_usd: number | null;
  /** Tokens the participant reported, summed over the rows (its word, not a measurement). */
  tokens_self_reported: number | null;
  /** Why a run that did not end ok ended so (error, incomplete): from results.json, the green's bundle, or the events. */
  reason: string | null;
  isolation: { backend: string | null; level: string; warnings: string[] } | null;
  /** Done and passed are counted from `counts_from`: results.json once it exists, else the events. */
  items: {
    selected: number | null;
    done: number;
    passed: number;
    counts_from: "results.json" | "events.jsonl";
    /** Items a partial run (its time budget ran out) did not run: never failures; 0 for a whole run. */
    not_run: number;
  };
  /** The run's own files present in its directory. */
  files: string[];
  /** events.jsonl ended mid-line (being written) / had bad lines. */
  events: { partial_tail: boolean; bad_lines: number } | null;
}

type Obj = Record<string, unknown>;
const obj = (v: unknown): Obj => (typeof v === "object" && v !== null && !Array.isArray(v) ? (v as Obj) : {});
const str = (v: unknown): string | null => (typeof v === "string" ? v : null);
const num = (v: unknown): number | null => (typeof v === "number" && Number.isFinite(v) ? v : null);

/** z of a two-sided 95 % interval. */
const Z95 = 1.959963984540054;

/** Wilson's 95 % score interval of a rate `p` over `n` trials (n > 0). */
export function wilsonInterval(p: number, n: number): { low: number; high: number } {
  const z2 = Z95 * Z95;
  const denom = 1 + z2 / n;
  const centre = (p + z2 / (2 * n)) / denom;
  const half = (Z95 * Math.sqrt((p * (1 - p)) / n + z2 / (4 * n * n))) / denom;
  // At 0 and 1 the bound is exactly the rate (floating point would leave 1e-16 of it).
  return { low: p === 0 ? 0 : Math.max(0, centre - half), high: p === 1 ? 1 : Math.min(1, centre + half) };
}

/** An interval the results carry for `key` (`<key>_ci: [low, high]` or `{low, high}`), else null. */
function ownInterval(agg: Obj, key: string): Headline["ci"] {
  const raw = agg[`${key}_ci`] ?? agg[`${key}_ci95`];
  const pair = Array.isArray(raw) ? raw : [obj(raw)["low"], obj(raw)["high"]];
  const [low, high] = [num(pair[0]), num(pair[1])];
  return low !== null && high !== null && low <= high ? { low, high, method: "from the results" } : null;
}

/** The headline read from `agg[key]`: a rate over `n` gets Wilson's interval when the results carry none. */
function headline(agg: Obj, label: string, key: string, value: unknown, n: number | null, rate = true): Headline {
  const v = num(value);
  const own = ownInterval(agg, key);
  const ci =
    own ??
    (rate && v !== null && v >= 0 && v <= 1 && n !== null && n > 0
      ? { ...wilsonInterval(v, n), method: `Wilson, ${n} item${n === 1 ? "" : "s"}` }
      : null);
  return { label, key, value: v, ci, n };
}

/**
 * The score a run is known by, its benchmark's own: SWE-bench's resolved rate, HumanEval's pass@1 (else
 * its smallest k), RedCode's safety, SPARC's accuracy; a reward when the results carry one; else
 * accuracy, else safety. Rates get a 95 % interval (the results' own, else Wilson's over the items the
 * rate is over — for pass@1 of n > 1 completions a task, over the tasks).
 */
export function headlineOf(benchmark: string | null, aggregate: unknown): Headline | null {
  const agg = obj(aggregate);
  const has = (k: string): boolean => k in agg && agg[k] !== undefined;
  if ((benchmark === "swebench" || benchmark === null) && has("resolved_rate"))
    return headline(agg, "resolved", "resolved_rate", agg["resolved_rate"], num(agg["total"]));
  const pak = obj(agg["pass_at_k"]);
  const ks = Object.keys(pak)
    .filter((k) => /^pass@\d+$/.test(k))
    .sort((a, b) => Number(a.slice(5)) - Number(b.slice(5)));
  if (ks.length > 0) {
    const k = ks.includes("pass@1") ? "pass@1" : ks[0]!;
    const n = num(agg["tasks"]) ?? num(agg["total"]);
    return headline(agg, k, "pass_at_k", pak[k], k === "pass@1" ? n : null, k === "pass@1");
  }
  if (benchmark === "redcode" && has("safety")) {
    const items = num(agg["items"]);
    const judged = items === null ? null : items - (num(agg["errors"]) ?? 0);
    return headline(agg, "safety", "safety", agg["safety"], judged);
  }
  if (benchmark === "sparc" && has("accuracy")) {
    const total = num(agg["total"]);
    const executed = total === null ? null : total - (num(agg["skipped"]) ?? 0);
    return headline(agg, "accuracy", "accuracy", agg["accuracy"], executed);
  }
  for (const key of ["reward", "mean_reward"])
    if (has(key)) return headline(agg, key.replace("_", " "), key, agg[key], null, false);
  for (const key of ["accuracy", "safety"])
    if (has(key)) return headline(agg, key, key, agg[key], num(agg["total"]) ?? num(agg["items"]));
  return null;
}

/** The participant of a run as shown: its URL, else the predictions file it scored, else a replay of the dataset. */
function participantOf(config: Obj, agent: unknown): string | null {
  const url = str(agent) ?? str(config["agent"]);
  if (url) return url;
  const predictions = str(config["predictions"]);
  if (predictions) return `predictions: ${basename(predictions)}`;
  // RedCode's replay runs the dataset's own code: no participant, the dataset stands in for one.
  return config["replay_dataset_code"] === true ? "replay: the dataset's code" : null;
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
  dataset: Obj | null;
  /** Self-reported total tokens summed over the rows (and their completions); null when no row reports any. */
  tokens: number | null;
  /** Items not run: the time budget ran out (results.json `partial`); 0 for a whole run. */
  notRun: number;
}

/** Self-reported total tokens of a row: its own usage, else its completions' summed. */
function rowTokens(row: Obj): number | null {
  const own = num(obj(row["usage"])["total_tokens"]);
  if (own !== null) return own;
  let sum: number | null = null;
  for (const s of Array.isArray(row["samples"]) ? row["samples"] : []) {
    const t = num(obj(obj(s)["usage"])["total_tokens"]);
    if (t !== null) sum = (sum ?? 0) + t;
  }
  return sum;
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
    dataset: typeof r["dataset"] === "object" && r["dataset"] !== null ? obj(r["dataset"]) : null,
    notRun: r["partial"] === true && Array.isArray(r["not_run"]) ? r["not_run"].length : 0,
    tokens: rows.reduce<number | null>((sum, x) => {
      const t = rowTokens(obj(x));
      return t === null ? sum : (sum ?? 0) + t;
    }, null),
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

/** Why a run is not ok, in one line: its error, or for an incomplete one how long it has been still. */
function reasonOf(
  status: RunState,
  error: { code: string; message: string } | null,
  stillMs: number,
  facts: EventFacts,
): string | null {
  if (error !== null) return `${error.code}: ${error.message}`;
  if (status !== "incomplete") return null;
  const minutes = Math.round(stillMs / 60_000);
  return `stopped before writing results.json (no file changed for ${minutes} min${facts.finished ? "" : "; no run_finished event"})`;
}

/** A status that is neither ok nor error (nor absent, as in results files older than it) is no pass. */
function oddStatusOf(results: ResultsFacts | null): { code: string; message: string } | null {
  return results && results.status !== null && results.status !== "ok" && results.status !== "error"
    ? { code: "E_VIEW_RUN_FILE", message: `results.json: status "${results.status}" is neither ok nor error` }
    : null;
}

const firstStr = (...vs: unknown[]): string | null => vs.map(str).find((v) => v !== null) ?? null;

/** When, how long, over what data and in which mode a run ran, and what it cost. */
function runFacts(
  results: ResultsFacts | null,
  meta: Obj,
  config: Obj,
  facts: EventFacts,
): Pick<
  RunSummary,
  "started_at" | "finished_at" | "interaction" | "dataset" | "wall_seconds" | "cost_usd" | "tokens_self_reported"
> {
  const timings = obj(meta["timings"]);
  const started = facts.started ?? {};
  const dataset = results?.dataset ?? (Object.keys(obj(meta["dataset"])).length ? obj(meta["dataset"]) : null);
  const datasetPath = dataset ? str(dataset["path"]) : firstStr(config["dataset"], started["dataset"]);
  const startedAt = num(timings["started_at_unix_seconds"]) ?? facts.firstTs;
  const finishedAt = num(timings["finished_at_unix_seconds"]);
  const aggregate = results?.aggregate ?? {};
  return {
    started_at: startedAt,
    finished_at: finishedAt,
    interaction: str(config["interaction"]) ?? (Object.keys(config).length ? "single_shot" : null),
    dataset: datasetPath ? { path: datasetPath, sha256: dataset ? str(dataset["sha256"]) : null } : null,
    wall_seconds:
      num(timings["elapsed_seconds"]) ?? (startedAt !== null && finishedAt !== null ? finishedAt - startedAt : null),
    cost_usd: num(aggregate["cost_usd"]) ?? num(obj(aggregate["cost"])["usd"]),
    tokens_self_reported: results?.tokens ?? null,
  };
}

/** Why a run without results.json stopped: the green's bundle, else the runner's run_finished error, else none. */
function stopReason(bundle: Obj, facts: EventFacts): { code: string; message: string } | null {
  const status = str(bundle["status"]);
  if (status !== null && status !== "ok")
    return { code: status, message: str(bundle["status_reason"]) ?? `the green agent ended the run ${status}` };
  const err = obj(facts.finished?.["error"]);
  if (str(err["message"])) return { code: str(err["code"]) ?? "?", message: str(err["message"])! };
  return null;
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
  // A run the green agent started: the config it handed the runner, and the bundle it wrote at the end.
  const greenConfig = resultsTime === null ? obj(await readJsonQuiet(ref.dir, RUNNER_CONFIG_FILE)) : {};
  const bundle = resultsTime === null ? obj(await readJsonQuiet(ref.dir, BUNDLE_FILE)) : {};
  // A finished run is described by its results.json first (what it scored is what it says it ran).
  const config = results ? results.config : { ...greenConfig, ...obj(meta["config"]) };
  const sandbox = results ? results.isolation : obj(meta["sandbox"]);
  const started = facts.started ?? {};
  const level = str(sandbox["isolation"]) ?? str(sandbox["level"]) ?? str(started["isolation"]);
  const latest = Math.max(events?.mtimeMs ?? 0, (await fileTime(ref.dir, CHECKPOINT_FILE)) ?? 0);
  // Without results.json: a bundle that is not ok, or a run_finished error, says the run failed and why.
  const stopped = resultsTime === null ? stopReason(bundle, facts) : null;
  const status: RunState =
    resultsTime !== null
      ? results !== null && (results.status === "ok" || results.status === null)
        ? "ok"
        : "error"
      : stopped !== null
        ? "error"
        : now - latest < RUNNING_WINDOW_MS
          ? "running"
          : "incomplete";
  const oddStatus = oddStatusOf(results);
  const error: Obj =
    unreadable !== null
      ? { code: "E_VIEW_RUN_FILE", message: unreadable }
      : (oddStatus ?? results?.error ?? stopped ?? {});
  const items = obj(meta["items"]);
  const shownError =
    status === "error" ? { code: str(error["code"]) ?? "?", message: str(error["message"]) ?? "" } : null;
  const reason = reasonOf(status, shownError, now - latest, facts);
  return {
    key: ref.key,
    run_id:
      firstStr(results?.run_id, meta["run_id"], started["run_id"], greenConfig["run_id"], bundle["run_id"]) ??
      basename(ref.dir),
    benchmark: firstStr(
      results?.benchmark,
      meta["benchmark"],
      started["benchmark"],
      identity["benchmark"],
      greenConfig["benchmark"],
      bundle["benchmark"],
    ),
    participant: participantOf(config, results ? null : (meta["agent"] ?? identity["agent"])),
    status,
    error: shownError,
    // Only results.json scores a run: a run without it (running, or stopped) has no headline yet.
    headline: status === "ok" && results ? headlineOf(results.benchmark, results.aggregate) : null,
    // A run its runner never wrote into has the green's timings of the runner process (its bundle's).
    ...runFacts(results, "timings" in meta ? meta : { ...meta, timings: bundle["timings"] }, config, facts),
    reason,
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
      not_run: resultsTime !== null ? (results?.notRun ?? 0) : 0,
    },
    files: names.filter((n) => n.endsWith(".json") || n.endsWith(".jsonl")).sort(),
    events: events ? { partial_tail: events.partialTail, bad_lines: events.badLines } : null,
  };
}
