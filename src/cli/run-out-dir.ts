/**
 * The `run` command's output directory, guarded at both ends:
 * - before the run, a directory that already holds a run (its results,
 *   checkpoint or events) is never overwritten unless `--resume` (continue it)
 *   or `--force` (replace it: its run files are deleted first) says so;
 * - after a run that failed before writing anything, the directory this
 *   invocation created is removed, so a failed invocation leaves no empty
 *   `results/<benchmark>/<run_id>/` behind.
 */
import { existsSync, readdirSync, rmdirSync, statSync, unlinkSync } from "node:fs";
import { dirname, join, relative, resolve } from "node:path";
import { UsageError } from "../util/errors.js";
import { CHECKPOINT_FILE } from "../runner/checkpoint.js";
import { EVENTS_FILE, RESULTS_FILE, RUN_METADATA_FILE } from "../runner/run-benchmark.js";

/** Files that mean "a run lives here", strongest first. */
const RUN_FILES = [RESULTS_FILE, CHECKPOINT_FILE, RUN_METADATA_FILE, EVENTS_FILE] as const;

/** What an output directory holds before the run. */
export interface OutDirState {
  /** The directory existed before this invocation. */
  existed: boolean;
  /** The run files found in it (empty events files do not count). */
  runFiles: string[];
  /** The outermost directory the run will create (`results/` on a fresh checkout), when it did not exist. */
  createdRoot?: string;
}

export function inspectOutDir(out: string): OutDirState {
  if (!existsSync(out)) {
    let createdRoot = resolve(out);
    while (dirname(createdRoot) !== createdRoot && !existsSync(dirname(createdRoot)))
      createdRoot = dirname(createdRoot);
    return { existed: false, runFiles: [], createdRoot };
  }
  const runFiles = RUN_FILES.filter((f) => {
    const p = join(out, f);
    return existsSync(p) && statSync(p).size > 0;
  });
  return { existed: true, runFiles };
}

/** Throw a UsageError when `out` holds a run and neither `--resume` nor `--force` is given. */
export function assertOutDirUsable(
  out: string,
  state: OutDirState,
  flags: { resume: boolean; force: boolean },
  cwd = process.cwd(),
): void {
  if (state.runFiles.length === 0 || flags.resume || flags.force) return;
  const rel = relative(cwd, out);
  const shown = rel === "" ? "." : rel.startsWith("..") ? resolve(out) : rel;
  const what = state.runFiles.includes(RESULTS_FILE) ? "a finished run" : "an unfinished run";
  throw new UsageError(
    `${shown} already holds ${what} (${state.runFiles.join(", ")}); give --resume to continue it, --force to overwrite it, or another --run-id/--out`,
  );
}

/**
 * `--force`: delete the previous run's own files (results, checkpoint,
 * metadata, events — the events file would otherwise be appended to). Nothing
 * else in the directory is touched.
 */
export function clearRunFiles(out: string, state: OutDirState): void {
  for (const f of state.runFiles) unlinkSync(join(out, f));
}

/**
 * After a failed run: remove `out` when this invocation created it and
 * nothing but an empty events file is in it, then its parents up to the
 * outermost one this invocation created, while empty. Returns whether `out` was removed.
 */
export function removeIfUnused(out: string, state: OutDirState): boolean {
  if (state.existed || !existsSync(out)) return false;
  const entries = readdirSync(out);
  const onlyEmptyEvents = entries.every((e) => e === EVENTS_FILE && statSync(join(out, e)).size === 0);
  if (!onlyEmptyEvents) return false;
  for (const e of entries) unlinkSync(join(out, e));
  rmdirSync(out);
  const stop = state.createdRoot;
  for (let dir = resolve(out); stop !== undefined && dir !== stop && dir.startsWith(stop);) {
    dir = dirname(dir);
    if (readdirSync(dir).length > 0) break;
    rmdirSync(dir);
  }
  return true;
}
