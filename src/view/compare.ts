/**
 * Two runs side by side: the items (matched by id) whose verdict differs —
 * passed or not, status, or how many completions passed — and the items only
 * one of the runs has. An id that more than one row of either run carries
 * cannot be matched: it is listed apart (`duplicates`), never counted the same.
 */
import type { RunRows } from "./run-rows.js";

export interface Verdict {
  status: string | null;
  passed: boolean;
  /** Completions passed / evaluated, when the benchmark has several per item. */
  correct: number | null;
  n: number | null;
  reason: string | null;
}

export interface CompareResult {
  /** Items whose verdict differs, or that only one run has (the other side null). */
  differing: Array<{ id: string; a: Verdict | null; b: Verdict | null }>;
  same: number;
  only_a: number;
  only_b: number;
  /** Ids carried by more than one row of a run: not compared (the run file is inconsistent). */
  duplicates: string[];
}

function verdictOf(row: Record<string, unknown>): Verdict {
  const n = typeof row["n"] === "number" ? row["n"] : null;
  const correct = typeof row["num_correct"] === "number" ? row["num_correct"] : null;
  const reason = row["reason"] ?? row["error"];
  return {
    status: typeof row["status"] === "string" ? row["status"] : null,
    passed: row["passed"] === true,
    correct,
    n,
    reason: typeof reason === "string" ? reason.slice(0, 240) : null,
  };
}

function sameVerdict(a: Verdict, b: Verdict): boolean {
  return a.passed === b.passed && a.status === b.status && a.correct === b.correct && a.n === b.n;
}

/** The items of `a` and `b` whose verdict differs, in `a`'s order then `b`'s. */
export function compareRuns(a: RunRows, b: RunRows): CompareResult {
  const duplicates = new Set([...a.duplicates, ...b.duplicates]);
  const bById = new Map(b.rows.map((r) => [r["id"] as string, r]));
  const aIds = new Set<string>();
  const result: CompareResult = { differing: [], same: 0, only_a: 0, only_b: 0, duplicates: [...duplicates].sort() };
  for (const row of a.rows) {
    const id = row["id"] as string;
    aIds.add(id);
    if (duplicates.has(id)) continue;
    const other = bById.get(id);
    const va = verdictOf(row);
    if (!other) {
      result.only_a++;
      result.differing.push({ id, a: va, b: null });
      continue;
    }
    const vb = verdictOf(other);
    if (sameVerdict(va, vb)) result.same++;
    else result.differing.push({ id, a: va, b: vb });
  }
  for (const row of b.rows) {
    const id = row["id"] as string;
    if (aIds.has(id) || duplicates.has(id)) continue;
    result.only_b++;
    result.differing.push({ id, a: null, b: verdictOf(row) });
  }
  return result;
}
