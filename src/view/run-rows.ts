/**
 * A run's rows as the viewer reads them: results.json when the run finished,
 * else the checkpoint (written atomically as items finish), else the
 * task_finished events (a run before its first checkpoint) — so a run still
 * being written is shown as far as it got.
 */
import { CHECKPOINT_FILE } from "../runner/checkpoint.js";
import { EVENTS_FILE, RESULTS_FILE } from "../runner/run-benchmark.js";
import { readJsonFile, readJsonlFile } from "./run-files.js";
import type { RunRef } from "./run-dirs.js";

type Obj = Record<string, unknown>;
const isObj = (v: unknown): v is Obj => typeof v === "object" && v !== null && !Array.isArray(v);

export type RowsSource = "results.json" | "checkpoint.json" | "events.jsonl" | "none";

export interface RunRows {
  source: RowsSource;
  /** Rows with at least an `id` (others are dropped). */
  rows: Obj[];
  /** results.json's aggregate (null while running). */
  aggregate: Obj | null;
}

/** The rows of `ref` (see the module note). Throws RunFileError for an unreadable results file. */
export async function readRunRows(ref: RunRef): Promise<RunRows> {
  const results = await readJsonFile(ref.dir, RESULTS_FILE);
  if (isObj(results) && Array.isArray(results["rows"]))
    return {
      source: "results.json",
      rows: results["rows"].filter((r): r is Obj => isObj(r) && typeof r["id"] === "string"),
      aggregate: isObj(results["aggregate"]) ? results["aggregate"] : null,
    };
  const checkpoint = await readJsonFile(ref.dir, CHECKPOINT_FILE).catch(() => null);
  if (isObj(checkpoint) && Array.isArray(checkpoint["rows"]))
    return {
      source: "checkpoint.json",
      rows: checkpoint["rows"].filter((r): r is Obj => isObj(r) && typeof r["id"] === "string"),
      aggregate: null,
    };
  const events = await readJsonlFile(ref.dir, EVENTS_FILE, Number.MAX_SAFE_INTEGER);
  if (!events) return { source: "none", rows: [], aggregate: null };
  const byId = new Map<string, Obj>();
  for (const e of events.records) {
    if (!isObj(e) || e["event"] !== "task_finished" || typeof e["task_id"] !== "string") continue;
    byId.set(e["task_id"], {
      id: e["task_id"],
      status: e["status"],
      passed: e["passed"],
      elapsed_seconds: e["elapsed_seconds"],
    });
  }
  return { source: "events.jsonl", rows: [...byId.values()], aggregate: null };
}
