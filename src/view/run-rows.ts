/**
 * A run's rows as the viewer reads them: results.json when the run finished,
 * else the checkpoint (written atomically as items finish), else the
 * task_finished events (a run before its first checkpoint) — so a run still
 * being written is shown as far as it got.
 *
 * Once results.json exists it alone is the run's verdict: a results file
 * without rows is a run without rows (never the checkpoint's, which a
 * participant may have rewritten), and an unreadable one is an error. An id
 * that more than one row carries is reported (`duplicates`), never merged.
 */
import { CHECKPOINT_FILE } from "../runner/checkpoint.js";
import { EVENTS_FILE, RESULTS_FILE } from "../runner/run-benchmark.js";
import { fileTime, readJsonFile, readJsonlFile, RunFileError } from "./run-files.js";
import type { RunRef } from "./run-dirs.js";

type Obj = Record<string, unknown>;
const isObj = (v: unknown): v is Obj => typeof v === "object" && v !== null && !Array.isArray(v);

/** Of events.jsonl, only this many last bytes are read for rows (bytes): 64 MiB. */
export const MAX_EVENTS_ROWS_BYTES = 64 * 1024 * 1024;

export type RowsSource = "results.json" | "checkpoint.jsonl" | "events.jsonl" | "none";

export interface RunRows {
  source: RowsSource;
  /** Rows with at least an `id` (others are dropped). */
  rows: Obj[];
  /** results.json's aggregate (null while running). */
  aggregate: Obj | null;
  /** Ids that more than one row carries (the file is inconsistent: each row is shown as it is). */
  duplicates: string[];
  /** Rows dropped for having no string id. */
  dropped: number;
}

function rowsOf(source: RowsSource, raw: unknown[], aggregate: Obj | null): RunRows {
  const rows = raw.filter((r): r is Obj => isObj(r) && typeof r["id"] === "string");
  const seen = new Set<string>();
  const duplicates = new Set<string>();
  for (const r of rows) {
    const id = r["id"] as string;
    if (seen.has(id)) duplicates.add(id);
    seen.add(id);
  }
  return { source, rows, aggregate, duplicates: [...duplicates], dropped: raw.length - rows.length };
}

/** The rows of `ref` (see the module note). Throws RunFileError for an unreadable results file. */
export async function readRunRows(ref: RunRef): Promise<RunRows> {
  if ((await fileTime(ref.dir, RESULTS_FILE)) !== null) {
    const results = await readJsonFile(ref.dir, RESULTS_FILE);
    if (!isObj(results)) throw new RunFileError(RESULTS_FILE, "not a results object");
    return rowsOf(
      "results.json",
      Array.isArray(results["rows"]) ? results["rows"] : [],
      isObj(results["aggregate"]) ? results["aggregate"] : null,
    );
  }
  // The checkpoint: a header line, then one `{_checksum, row}` line per finished item (runner/checkpoint.ts).
  const checkpoint = await readJsonlFile(ref.dir, CHECKPOINT_FILE, MAX_EVENTS_ROWS_BYTES).catch(() => null);
  if (checkpoint && checkpoint.records.length > 0) {
    const rows = checkpoint.records.flatMap((r) => (isObj(r) && isObj(r["row"]) ? [r["row"]] : []));
    return rowsOf("checkpoint.jsonl", rows, null);
  }
  const events = await readJsonlFile(ref.dir, EVENTS_FILE, MAX_EVENTS_ROWS_BYTES);
  if (!events) return rowsOf("none", [], null);
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
  return rowsOf("events.jsonl", [...byId.values()], null);
}
