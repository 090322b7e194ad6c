/**
 * The terminal benchmark's datasets: `sample` is the task directories shipped
 * with the package (`terminal-tasks/`, written for this project, one task per
 * feature of the format); anything else is a directory of task directories
 * (a checkout of Terminal-Bench 2.0's tasks, Harbor adapter output) or one
 * task directory.
 */
import { join, resolve } from "node:path";
import { packageRoot } from "../../util/package-root.js";
import { readTask, taskDirsOf, type TerminalTask } from "./task.js";
import { TerminalTaskError } from "./errors.js";

/** The shipped sample tasks. */
export const SAMPLE_TASKS_DIR = join(packageRoot, "terminal-tasks");

/** The directory `dataset` names. */
export function datasetDir(dataset: string): string {
  return dataset === "sample" ? SAMPLE_TASKS_DIR : resolve(dataset);
}

/** Every task of the dataset; one that cannot be read is kept as unsupported, its reason given. */
export async function loadTasks(dataset: string): Promise<TerminalTask[]> {
  const dirs = await taskDirsOf(datasetDir(dataset));
  return Promise.all(
    dirs.map(async (dir) => {
      try {
        return await readTask(dir);
      } catch (err) {
        if (!(err instanceof TerminalTaskError)) throw err;
        return unreadable(dir, err.message);
      }
    }),
  );
}

function unreadable(dir: string, why: string): TerminalTask {
  return {
    id: dir.split("/").pop()!,
    dir,
    instruction: "",
    agentTimeoutSec: 1,
    verifierTimeoutSec: 1,
    verifierEnv: {},
    buildTimeoutSec: 1,
    cpus: 1,
    memoryMb: 1,
    storageMb: 1,
    allowInternet: false,
    hasSolution: false,
    unsupported: [`the task cannot be read: ${why}`],
  };
}

/** The task called `id` among `dirs` (dataset directories) and the sample; null when none holds it. */
export async function findTaskDir(id: string, dirs: readonly string[]): Promise<string | null> {
  if (!/^[A-Za-z0-9][A-Za-z0-9._-]*$/.test(id)) return null;
  for (const d of [...dirs.map((x) => resolve(x)), SAMPLE_TASKS_DIR]) {
    let found: string[];
    try {
      found = await taskDirsOf(d);
    } catch {
      continue;
    }
    const hit = found.find((t) => t.split("/").pop() === id);
    if (hit) return hit;
  }
  return null;
}
