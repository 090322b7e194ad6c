/**
 * One item of a run: its whole row, the run's files the row points at
 * (SWE-bench's report.json and artifacts, a trajectory), as paths relative to
 * the run directory — only files that are inside it (safe-path.ts) — and its
 * neighbours for previous/next links.
 */
import { readdir, realpath, stat } from "node:fs/promises";
import { isAbsolute, join, relative, resolve, sep } from "node:path";
import { isInside } from "./safe-path.js";
import { readRunRows, type RowsSource } from "./run-rows.js";
import type { RunRef } from "./run-dirs.js";

/** Files listed from one directory a row points at, at most. */
export const MAX_LINKED_FILES = 50;
/** Directories looked into per directory a row points at, at most. */
export const MAX_LINKED_DIRS = 100;
/** Paths a row (with its samples) names that are followed, at most; the rest are counted, not shown. */
export const MAX_ITEM_LINKS = 50;
/** Row keys that name a trajectory file (JSONL, one turn per line). */
export const TRAJECTORY_KEYS = ["trajectory", "trajectory_path", "trajectory_file"] as const;

type Obj = Record<string, unknown>;
const isObj = (v: unknown): v is Obj => typeof v === "object" && v !== null && !Array.isArray(v);

export interface RunItem {
  source: RowsSource;
  row: Obj;
  index: number;
  total: number;
  prev: string | null;
  next: string | null;
  /** The neighbours' row positions, when their id is carried by more than one row (else null). */
  prev_at: number | null;
  next_at: number | null;
  /** Files of the run directory the row names (relative, slash-separated). */
  files: string[];
  /** How many rows of the run carry this id (more than 1: the run file is inconsistent). */
  rows_with_id: number;
  /** Trajectory files: of the item (`sample` null) or of one completion. */
  trajectories: Array<{ sample: number | null; path: string }>;
  /** Paths the row names beyond MAX_ITEM_LINKS: not followed (a row naming thousands stays cheap to show). */
  links_not_followed: number;
}

const toSlash = (p: string): string => p.split(sep).join("/");

/** `value` as a path inside `root` (relative), when it names an existing file or directory there. */
async function inRun(root: string, value: string): Promise<{ rel: string; dir: boolean } | null> {
  const candidates = isAbsolute(value) ? [value] : [join(root, value), resolve(value)];
  for (const c of candidates) {
    const real = await realpath(c).catch(() => null);
    if (real === null || !isInside(root, real) || real === root) continue;
    const st = await stat(real);
    return { rel: toSlash(relative(root, real)), dir: st.isDirectory() };
  }
  return null;
}

/**
 * Files below `dir` (relative to `root`), breadth first, at most
 * MAX_LINKED_FILES, looking into at most MAX_LINKED_DIRS directories (a tree
 * of thousands of empty directories costs no more than a small one).
 */
async function listFiles(root: string, dir: string): Promise<string[]> {
  const out: string[] = [];
  const queue = [dir];
  let visited = 0;
  while (queue.length > 0 && out.length < MAX_LINKED_FILES && visited++ < MAX_LINKED_DIRS) {
    const d = queue.shift()!;
    const entries = await readdir(join(root, d), { withFileTypes: true }).catch(() => []);
    for (const e of entries.sort((x, y) => x.name.localeCompare(y.name))) {
      if (e.isDirectory()) queue.push(`${d}/${e.name}`);
      else if (e.isFile() && out.length < MAX_LINKED_FILES) out.push(`${d}/${e.name}`);
    }
  }
  return out;
}

/** String values of `o` under path-like keys. */
function pathValues(o: Obj): Array<[string, string]> {
  return Object.entries(o).filter(
    (e): e is [string, string] =>
      typeof e[1] === "string" &&
      e[1].length < 4096 &&
      (/(_path|_dir|_file)$/.test(e[0]) || (TRAJECTORY_KEYS as readonly string[]).includes(e[0])),
  );
}

async function linkedFiles(
  dir: string,
  row: Obj,
): Promise<Pick<RunItem, "files" | "trajectories" | "links_not_followed">> {
  const root = await realpath(dir);
  const files = new Set<string>();
  const trajectories: RunItem["trajectories"] = [];
  const samples = Array.isArray(row["samples"]) ? row["samples"] : [];
  const owners: Array<[number | null, Obj]> = [
    [null, row],
    ...samples.map((s, i): [number, Obj] => [i, isObj(s) ? s : {}]),
  ];
  let examined = 0;
  let skipped = 0;
  for (const [sample, o] of owners) {
    for (const [key, value] of pathValues(o)) {
      if (examined++ >= MAX_ITEM_LINKS) {
        skipped++;
        continue;
      }
      const found = await inRun(root, value);
      if (!found) continue;
      if (found.dir) for (const f of await listFiles(root, found.rel)) files.add(f);
      else {
        files.add(found.rel);
        if ((TRAJECTORY_KEYS as readonly string[]).includes(key)) trajectories.push({ sample, path: found.rel });
      }
    }
  }
  return { files: [...files], trajectories, links_not_followed: skipped };
}

/**
 * The item `id` of `ref`, or null when the run has no such item. `at`, the
 * row's position, picks one of several rows carrying the same id (it must
 * carry `id`); without it the first is taken and `rows_with_id` says so.
 */
export async function readRunItem(ref: RunRef, id: string, at: number | null = null): Promise<RunItem | null> {
  const run = await readRunRows(ref);
  const index = at === null ? run.rows.findIndex((r) => r["id"] === id) : run.rows[at]?.["id"] === id ? at : -1;
  if (index === -1) return null;
  const row = run.rows[index]!;
  const dup = (i: number): boolean => run.duplicates.includes(run.rows[i]?.["id"] as string);
  const id0 = (i: number): string | null => (run.rows[i]?.["id"] as string | undefined) ?? null;
  return {
    source: run.source,
    row,
    index,
    total: run.rows.length,
    prev: index > 0 ? id0(index - 1) : null,
    next: id0(index + 1),
    prev_at: index > 0 && dup(index - 1) ? index - 1 : null,
    next_at: dup(index + 1) ? index + 1 : null,
    rows_with_id: run.rows.filter((r) => r["id"] === id).length,
    ...(await linkedFiles(ref.dir, row)),
  };
}
