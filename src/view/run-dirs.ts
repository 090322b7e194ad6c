/**
 * Which directories are runs: a directory holding any of a run's files
 * (results.json, checkpoint.jsonl, run_metadata.json, events.jsonl), or what
 * the green agent leaves in a run's directory before and after its runner
 * (evaluation_bundle.json; config.json when it names a benchmark and a run
 * id) — so a run that failed before its runner wrote anything is listed. The
 * directories named on the command line are searched a few levels down
 * (`results/<benchmark>/<run_id>/` is two), afresh on every request, so a run
 * started after the viewer shows up on the next reload.
 */
import { readdir, stat } from "node:fs/promises";
import { basename, join, resolve } from "node:path";
import { CHECKPOINT_FILE } from "../runner/checkpoint.js";
import { EVENTS_FILE, RESULTS_FILE, RUN_METADATA_FILE } from "../runner/run-benchmark.js";
import { readJsonQuiet } from "./run-files.js";

/** The resolved config the green agent hands its runner, in the run's directory. */
export const RUNNER_CONFIG_FILE = "config.json";
/** The evaluation bundle the green agent writes when the runner ended (with how it ended, and why). */
export const BUNDLE_FILE = "evaluation_bundle.json";
/** Files that make a directory a run. */
export const RUN_MARKERS = [RESULTS_FILE, CHECKPOINT_FILE, RUN_METADATA_FILE, EVENTS_FILE, BUNDLE_FILE] as const;
/** How deep below a named directory runs are looked for. */
export const MAX_SEARCH_DEPTH = 4;
/** Directories looked at per search at most (a huge tree stays cheap to list). */
export const MAX_DIRS_SEARCHED = 5000;

/** One run: its stable key (used in URLs) and its directory. */
export interface RunRef {
  /** Slash-separated path of the run below its named directory (its name when it was named itself). */
  key: string;
  dir: string;
}

/** Whether `dir`'s config.json is a run's config (an object naming a benchmark and a run id). */
async function isRunConfig(dir: string): Promise<boolean> {
  const config = await readJsonQuiet(dir, RUNNER_CONFIG_FILE);
  if (typeof config !== "object" || config === null) return false;
  const c = config as Record<string, unknown>;
  return typeof c["benchmark"] === "string" && typeof c["run_id"] === "string";
}

async function isRunDir(dir: string, names: readonly string[]): Promise<boolean> {
  const marked =
    RUN_MARKERS.some((m) => names.includes(m)) || (names.includes(RUNNER_CONFIG_FILE) && (await isRunConfig(dir)));
  return marked && (await stat(dir)).isDirectory();
}

/** Runs below `root`, breadth first; a run's own subdirectories are not searched. */
async function searchRoot(root: string, prefix: string, budget: { dirs: number }): Promise<RunRef[]> {
  const found: RunRef[] = [];
  let level: Array<{ dir: string; rel: string }> = [{ dir: root, rel: "" }];
  for (let depth = 0; depth <= MAX_SEARCH_DEPTH && level.length > 0; depth++) {
    const next: typeof level = [];
    for (const { dir, rel } of level) {
      if (budget.dirs-- <= 0) return found;
      const entries = await readdir(dir, { withFileTypes: true }).catch(() => null);
      if (!entries) continue;
      const names = entries.map((e) => e.name);
      if (await isRunDir(dir, names)) {
        const key = [prefix, rel].filter((s) => s !== "").join("/") || basename(root);
        found.push({ key, dir });
        continue;
      }
      for (const e of entries)
        if (e.isDirectory() && !e.name.startsWith("."))
          next.push({ dir: join(dir, e.name), rel: rel === "" ? e.name : `${rel}/${e.name}` });
    }
    level = next.sort((a, b) => a.rel.localeCompare(b.rel));
  }
  return found;
}

/**
 * The runs under `roots`. With one root, keys are paths below it; with
 * several, each root's runs are prefixed by the root's name (made unique).
 */
export async function findRuns(roots: readonly string[]): Promise<RunRef[]> {
  const budget = { dirs: MAX_DIRS_SEARCHED };
  const used = new Set<string>();
  const runs: RunRef[] = [];
  for (const root of roots) {
    const abs = resolve(root);
    let prefix = "";
    if (roots.length > 1) {
      const base = basename(abs) || "root";
      prefix = base;
      for (let i = 2; used.has(prefix); i++) prefix = `${base}-${i}`;
      used.add(prefix);
    }
    runs.push(...(await searchRoot(abs, prefix, budget)));
  }
  return runs;
}

/** The run whose key is `key`, or null (keys are matched exactly: never resolved as paths). */
export async function findRun(roots: readonly string[], key: string): Promise<RunRef | null> {
  return (await findRuns(roots)).find((r) => r.key === key) ?? null;
}
