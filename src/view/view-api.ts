/**
 * The viewer's JSON API, apart from HTTP: a route and its query in, a status
 * and a JSON body out. Everything is read from the run files on each call
 * (no index, no cache), so a run still being written shows its latest state.
 * The export (export-page.ts) calls the same routes to inline their answers.
 */
import { findRun, findRuns, type RunRef } from "./run-dirs.js";
import { readResultsFacts, readRunHead, summarizeRun, type RunSummary } from "./run-summary.js";
import { itemTask, type TaskContext } from "./item-task.js";
import { RUN_METADATA_FILE } from "../runner/run-benchmark.js";
import { readRunRows } from "./run-rows.js";
import { buildRunTable } from "./run-table.js";
import { readRunItem } from "./run-item.js";
import { compareRuns } from "./compare.js";
import { openRunFileSafely, resolveRunFile, ViewPathError } from "./safe-path.js";
import { readJsonlFile, readJsonQuiet } from "./run-files.js";
import { BenchError, errorMessage } from "../util/errors.js";
import { dirname, basename } from "node:path";
import { trajectoryTurns } from "./trajectory-turns.js";

/** Largest trajectory read (bytes): its last 16 MiB. */
export const MAX_TRAJECTORY_BYTES = 16 * 1024 * 1024;

export interface ApiAnswer {
  status: number;
  body: unknown;
}

const fail = (status: number, message: string): ApiAnswer => ({ status, body: { error: message } });

async function runOr404(roots: readonly string[], key: string | null): Promise<RunRef | ApiAnswer> {
  if (!key) return fail(400, "the run is not named (?run=)");
  return (await findRun(roots, key)) ?? fail(404, `no run "${key}" under the viewed directories`);
}

async function runs(roots: readonly string[]): Promise<ApiAnswer> {
  const refs = await findRuns(roots);
  const summaries = await Promise.all(refs.map((r) => summarizeRun(r)));
  summaries.sort((a, b) => (b.started_at ?? 0) - (a.started_at ?? 0) || a.key.localeCompare(b.key));
  return { status: 200, body: { runs: summaries } };
}

async function run(roots: readonly string[], q: URLSearchParams): Promise<ApiAnswer> {
  const ref = await runOr404(roots, q.get("run"));
  if (!("dir" in ref)) return ref;
  const [summary, rows] = await Promise.all([summarizeRun(ref), readRunRows(ref)]);
  return { status: 200, body: { summary, table: buildRunTable(rows) } };
}

async function runHead(roots: readonly string[], q: URLSearchParams): Promise<ApiAnswer> {
  const ref = await runOr404(roots, q.get("run"));
  if (!("dir" in ref)) return ref;
  return { status: 200, body: await readRunHead(ref) };
}

/** Characters of an item's final diff sent at most (the rest is linked as the raw file). */
export const MAX_DIFF_CHARS = 512 * 1024;

/** The item's final diff: the row's own patch text, else the `patch.diff` among its files (read inside the run). */
async function itemDiff(
  ref: RunRef,
  row: Record<string, unknown>,
  files: readonly string[],
): Promise<{ path: string | null; text: string; truncated: boolean } | null> {
  for (const key of ["model_patch", "patch", "diff"])
    if (typeof row[key] === "string" && row[key] !== "") {
      const text = row[key];
      return { path: null, text: text.slice(0, MAX_DIFF_CHARS), truncated: text.length > MAX_DIFF_CHARS };
    }
  const path = files.find((f) => f === "patch.diff" || f.endsWith("/patch.diff"));
  if (!path) return null;
  const handle = await openRunFileSafely(ref.dir, path).catch(() => null);
  if (!handle) return null;
  try {
    const buf = Buffer.alloc(MAX_DIFF_CHARS * 4);
    const { bytesRead } = await handle.read(buf, 0, buf.length, 0);
    const text = buf.subarray(0, bytesRead).toString("utf8");
    const truncated = bytesRead === buf.length || text.length > MAX_DIFF_CHARS;
    return { path, text: text.slice(0, MAX_DIFF_CHARS), truncated };
  } finally {
    await handle.close();
  }
}

/** What the task context of `ref` is: its results.json's benchmark, config and dataset, else its metadata's. */
async function taskContext(ref: RunRef, summary: RunSummary): Promise<TaskContext> {
  const facts = await readResultsFacts(ref.dir).catch(() => null);
  const meta = (await readJsonQuiet(ref.dir, RUN_METADATA_FILE)) as Record<string, unknown> | null;
  const metaConfig = meta && typeof meta["config"] === "object" && meta["config"] !== null ? meta["config"] : {};
  return {
    benchmark: summary.benchmark,
    config: facts?.config ?? (metaConfig as Record<string, unknown>),
    dataset: summary.dataset,
  };
}

async function item(roots: readonly string[], q: URLSearchParams): Promise<ApiAnswer> {
  const ref = await runOr404(roots, q.get("run"));
  if (!("dir" in ref)) return ref;
  const id = q.get("id");
  if (id === null) return fail(400, "the item is not named (?id=)");
  const atText = q.get("at");
  if (atText !== null && !/^\d{1,9}$/.test(atText)) return fail(400, "?at= is a row position (0, 1, …)");
  const at = atText === null ? null : Number(atText);
  const [summary, found] = await Promise.all([summarizeRun(ref), readRunItem(ref, id, at)]);
  if (!found) return fail(404, `run "${ref.key}" has no item "${id}"${at === null ? "" : ` at row ${at}`}`);
  const [task, diff] = await Promise.all([
    taskContext(ref, summary).then((ctx) => itemTask(id, ctx)),
    itemDiff(ref, found.row, found.files),
  ]);
  return { status: 200, body: { summary, item: found, task, diff } };
}

async function compare(roots: readonly string[], q: URLSearchParams): Promise<ApiAnswer> {
  const a = await runOr404(roots, q.get("a"));
  if (!("dir" in a)) return a;
  const b = await runOr404(roots, q.get("b"));
  if (!("dir" in b)) return b;
  const [sa, sb, ra, rb] = await Promise.all([summarizeRun(a), summarizeRun(b), readRunRows(a), readRunRows(b)]);
  return { status: 200, body: { a: sa, b: sb, compare: compareRuns(ra, rb) } };
}

async function trajectory(roots: readonly string[], q: URLSearchParams): Promise<ApiAnswer> {
  const ref = await runOr404(roots, q.get("run"));
  if (!("dir" in ref)) return ref;
  const real = await resolveRunFile(ref.dir, q.get("path") ?? "");
  const read = await readJsonlFile(dirname(real), basename(real), MAX_TRAJECTORY_BYTES);
  if (!read) return fail(404, "no such file in the run directory");
  return {
    status: 200,
    body: {
      path: q.get("path"),
      turns: trajectoryTurns(read.records),
      bad_lines: read.badLines,
      partial_tail: read.partialTail,
      truncated_head: read.truncatedHead,
    },
  };
}

/** The API routes, by path. */
export const API_ROUTES: Record<string, (roots: readonly string[], q: URLSearchParams) => Promise<ApiAnswer>> = {
  "/api/runs": (roots) => runs(roots),
  "/api/run-head": runHead,
  "/api/run": run,
  "/api/item": item,
  "/api/compare": compare,
  "/api/trajectory": trajectory,
};

/** Answer `route` with `query` over the runs under `roots`; errors become JSON answers. */
export async function answerApi(roots: readonly string[], route: string, query: URLSearchParams): Promise<ApiAnswer> {
  const handler = Object.hasOwn(API_ROUTES, route) ? API_ROUTES[route] : undefined;
  if (!handler) return fail(404, `no API route ${route}`);
  try {
    const answer = await handler(roots, query);
    try {
      JSON.stringify(answer.body);
    } catch (err) {
      // A row nested thousands deep (or otherwise beyond serializing) is refused, not a crash of the answer.
      return fail(422, `this view cannot be sent: the run file's data is nested too deeply (${errorMessage(err)})`);
    }
    return answer;
  } catch (err) {
    if (err instanceof ViewPathError) return fail(err.status, err.message);
    if (err instanceof BenchError) return fail(422, err.message);
    return fail(500, errorMessage(err));
  }
}
