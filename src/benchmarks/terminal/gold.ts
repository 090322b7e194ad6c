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
import { GoldError, type GoldContext, type GoldEpisodePlanner } from "../gold.js";
import { findTaskDir } from "./dataset.js";
import { shellQuote } from "../../util/shell-quote.js";

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

/** The gold episode of a task: its solution written to {@link SOLUTION_DIR}, then `bash solve.sh` from there. */
export const terminalGoldEpisode: GoldEpisodePlanner = async (task, ctx) => {
  const files = await solutionFiles(task.id, ctx);
  const dirs = [...new Set(Object.keys(files).map((f) => `${SOLUTION_DIR}/${f}`.replace(/\/[^/]*$/, "")))];
  return {
    what: "solution/solve.sh",
    steps: [
      { kind: "run", command: `rm -rf ${SOLUTION_DIR} && mkdir -p ${dirs.map(shellQuote).join(" ")}` },
      ...Object.entries(files).map(([f, content]) => ({
        kind: "write_file" as const,
        path: `${SOLUTION_DIR}/${f}`,
        content,
      })),
      { kind: "run", command: `bash ${SOLUTION_DIR}/solve.sh` },
    ],
  };
};
