/**
 * The run's finished rows, held small: each row's summary (the keys every
 * benchmark writes, `ResultRow`'s own: id, status, passed, failure mode,
 * error...) and where its full line stands in the checkpoint. Why: a row can
 * carry per-completion outputs (HumanEval's `samples`, n per task), so
 * holding full rows made a run's memory grow with the completions; the full
 * row is on disk once it finished (checkpoint.ts) and is read back from there,
 * one at a time, when results.json is written.
 */
import { open } from "node:fs/promises";
import type { ItemResult } from "./benchmark.js";
import { rowOfLine, type RowLocation } from "./checkpoint.js";

/** The keys a row summary keeps (schemas' `$defs/row` core; bounded in size whatever the benchmark). */
const SUMMARY_KEYS = ["id", "status", "passed", "elapsed_seconds", "failure_mode", "error", "timed_out", "reason"];

/** A row's summary: its core keys only. */
export function summarizeRow(row: ItemResult): ItemResult {
  const out: Record<string, unknown> = {};
  for (const key of SUMMARY_KEYS) if (row[key] !== undefined) out[key] = row[key];
  return out as ItemResult;
}

export interface StoredRow {
  summary: ItemResult;
  location: RowLocation;
}

/** Row summaries in completion order (resumed ones first), each with its checkpoint line. */
export class RowStore {
  readonly rows: StoredRow[];

  constructor(initial: readonly StoredRow[] = []) {
    this.rows = [...initial];
  }

  add(row: ItemResult, location: RowLocation): void {
    this.rows.push({ summary: summarizeRow(row), location });
  }

  get summaries(): ItemResult[] {
    return this.rows.map((r) => r.summary);
  }

  get length(): number {
    return this.rows.length;
  }
}

/**
 * Read the full rows of `stored` from the checkpoint at `path`, in the order
 * given, one at a time (each line verified again). `unwritten` supplies a line
 * a failed write left in memory.
 */
export async function* readFullRows(
  path: string,
  stored: readonly StoredRow[],
  unwritten: (location: RowLocation) => string | undefined,
): AsyncGenerator<ItemResult> {
  if (stored.length === 0) return;
  const handle = await open(path, "r");
  try {
    for (const { location, summary } of stored) {
      let text = unwritten(location);
      if (text === undefined) {
        const buf = Buffer.alloc(location.length);
        const { bytesRead } = await handle.read(buf, 0, location.length, location.offset);
        text = buf.toString("utf8", 0, bytesRead);
      }
      yield rowOfLine(text, path, `the line of ${summary.id} (byte ${location.offset})`);
    }
  } finally {
    await handle.close();
  }
}
