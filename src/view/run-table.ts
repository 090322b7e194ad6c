/**
 * The compact table of a run the browser sorts, filters and pages itself:
 * one tuple per item and, for benchmarks with several completions per item
 * (HumanEval's `samples`), one per completion, every repeated string (status,
 * failure mode, reason, id) stored once in `strings`. Why: a HumanEval n=200
 * run is 32,800 completions whose full rows are tens of megabytes; their
 * table is a few hundred kilobytes and sorts in milliseconds.
 */
import type { RunRows, RowsSource } from "./run-rows.js";

/** Characters of a reason kept in the table (the item view shows it whole). */
export const TABLE_REASON_CHARS = 240;

/** [id, status, passed 0|1, failure mode, elapsed seconds, reason, completions, completions passed]; strings are indices, -1 none. */
export type ItemTuple = [number, number, 0 | 1, number, number | null, number, number, number];
/** [item index, completion index, status, passed 0|1, failure mode, duration ms, reason]. */
export type CompletionTuple = [number, number, number, 0 | 1, number, number | null, number];

export interface RunTable {
  source: RowsSource;
  aggregate: Record<string, unknown> | null;
  strings: string[];
  items: ItemTuple[];
  completions: CompletionTuple[];
  /** Ids more than one row carries (see run-rows.ts); their items are addressed by row position. */
  duplicates: string[];
  /** Rows of the file without a string id (not shown). */
  dropped: number;
}

type Obj = Record<string, unknown>;
const num = (v: unknown): number | null => (typeof v === "number" && Number.isFinite(v) ? v : null);

/** Interning of strings into `strings`; null and non-strings are -1. */
function interner(strings: string[]): (v: unknown, max?: number) => number {
  const index = new Map<string, number>();
  return (v, max) => {
    if (typeof v !== "string" || v === "") return -1;
    const s = max !== undefined && v.length > max ? v.slice(0, max) + "…" : v;
    let i = index.get(s);
    if (i === undefined) {
      i = strings.length;
      strings.push(s);
      index.set(s, i);
    }
    return i;
  };
}

/** Build the table of `run` (see the module note). */
export function buildRunTable(run: RunRows): RunTable {
  const strings: string[] = [];
  const intern = interner(strings);
  const items: ItemTuple[] = [];
  const completions: CompletionTuple[] = [];
  run.rows.forEach((row, itemIndex) => {
    const samples = Array.isArray(row["samples"]) ? (row["samples"] as unknown[]) : [];
    let correct = 0;
    samples.forEach((raw, si) => {
      const s = (typeof raw === "object" && raw !== null ? raw : {}) as Obj;
      const passed = s["status"] === "passed" ? 1 : 0;
      correct += passed;
      completions.push([
        itemIndex,
        si,
        intern(s["status"]),
        passed,
        intern(s["failure_mode"]),
        num(s["duration_ms"]),
        intern(s["reason"] ?? s["error"], TABLE_REASON_CHARS),
      ]);
    });
    items.push([
      intern(row["id"]),
      intern(row["status"]),
      row["passed"] === true ? 1 : 0,
      intern(row["failure_mode"]),
      num(row["elapsed_seconds"]),
      intern(row["reason"] ?? row["error"], TABLE_REASON_CHARS),
      num(row["n"]) ?? samples.length,
      num(row["num_correct"]) ?? correct,
    ]);
  });
  return {
    source: run.source,
    aggregate: run.aggregate,
    strings,
    items,
    completions,
    duplicates: run.duplicates,
    dropped: run.dropped,
  };
}
