/**
 * HumanEval's reference answers for the purple `gold` mode: the dataset's
 * `canonical_solution`, from the dataset the request names (`sample`,
 * `humaneval-full`, or a readable path) or, failing that, one given to the
 * purple CLI with `--dataset`.
 */
import { GoldError, type GoldAnswerer } from "../gold.js";
import { loadHumanEval, SAMPLE_DATASET, type LoadedDataset } from "./dataset.js";

const cache = new Map<string, Promise<LoadedDataset>>();

function loadCached(dataset: string, env: NodeJS.ProcessEnv): Promise<LoadedDataset> {
  let p = cache.get(dataset);
  if (!p) {
    p = loadHumanEval(dataset, env);
    p.catch(() => cache.delete(dataset)); // a missing file may appear later
    cache.set(dataset, p);
  }
  return p;
}

export const humanEvalGold: GoldAnswerer = async (task, ctx) => {
  const taskId = task["task_id"];
  if (typeof taskId !== "string") throw new GoldError("humaneval task without a task_id");
  const named = typeof task["dataset"] === "string" ? [task["dataset"]] : [];
  const candidates = [...new Set([...named, ...ctx.datasets, SAMPLE_DATASET])];
  const tried: string[] = [];
  for (const dataset of candidates) {
    let ds: LoadedDataset;
    try {
      ds = await loadCached(dataset, ctx.env);
    } catch (err) {
      tried.push(`${dataset} (${(err as Error).message})`);
      continue;
    }
    const problem = ds.problems.find((p) => p.task_id === taskId);
    if (problem) return { text: "```python\n" + problem.canonical_solution + "```\n" };
    tried.push(`${dataset} (no ${taskId})`);
  }
  throw new GoldError(`no reference solution for ${taskId}; tried ${tried.join(", ")}`);
};
