/**
 * The terminal benchmark's oracle for the purple `gold` mode: the task's
 * `solution/` directory, written into the environment at `/solution` through
 * commands, then `bash /solution/solve.sh` (Harbor's oracle agent runs the
 * same script from the same place). The task is found by its id among the
 * datasets the purple knows (its `--dataset` directories, then the shipped
 * sample).
 */
import { readFile, readdir } from "node:fs/promises";
import { join, relative } from "node:path";
import { GoldError, type GoldContext } from "../gold.js";
import { findTaskDir } from "./dataset.js";

/** Where the oracle's files go in the environment. */
export const SOLUTION_DIR = "/solution";

/** The solution's files (relative path → text). */
export async function solutionFiles(taskId: string, ctx: GoldContext): Promise<Record<string, string>> {
  const dir = await findTaskDir(taskId, ctx.datasets);
  if (dir === null)
    throw new GoldError(`no terminal task "${taskId}" in ${[...ctx.datasets, "the sample"].join(", ")}`);
  const root = join(dir, "solution");
  const out: Record<string, string> = {};
  const walk = async (d: string): Promise<void> => {
    for (const e of await readdir(d, { withFileTypes: true })) {
      const p = join(d, e.name);
      if (e.isDirectory()) await walk(p);
      else if (e.isFile()) out[relative(root, p)] = await readFile(p, "utf8");
    }
  };
  try {
    await walk(root);
  } catch {
    throw new GoldError(`terminal task "${taskId}" has no solution/ directory`);
  }
  if (out["solve.sh"] === undefined) throw new GoldError(`terminal task "${taskId}" has no solution/solve.sh`);
  return out;
}
