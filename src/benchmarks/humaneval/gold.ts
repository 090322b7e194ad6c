/**
 * HumanEval's reference answers for the purple `gold` mode: the dataset's
 * `canonical_solution`, from the dataset the request names (`sample`,
 * `humaneval-full`, or a readable path) or, failing that, one given to the
 * purple CLI with `--dataset`.
 */
import { GoldError, type GoldAnswerer, type GoldContext, type GoldEpisodePlanner } from "../gold.js";
import type { HumanEvalProblem } from "./problem.js";
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

/** The HumanEval problem `taskId` from the dataset the task names, purple's --dataset, or the sample set. */
export async function humanEvalProblem(
  taskId: string,
  named: string | undefined,
  ctx: GoldContext,
): Promise<HumanEvalProblem> {
  const candidates = [...new Set([...(named !== undefined ? [named] : []), ...ctx.datasets, SAMPLE_DATASET])];
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
    if (problem) return problem;
    tried.push(`${dataset} (no ${taskId})`);
  }
  throw new GoldError(`no reference solution for ${taskId}; tried ${tried.join(", ")}`);
}

/** Every problem of purple's --dataset files that load as HumanEval, then of the sample set (others skipped). */
export async function knownHumanEvalProblems(ctx: GoldContext): Promise<HumanEvalProblem[]> {
  const out: HumanEvalProblem[] = [];
  for (const dataset of new Set([...ctx.datasets, SAMPLE_DATASET])) {
    try {
      out.push(...(await loadCached(dataset, ctx.env)).problems);
    } catch {
      // not a HumanEval dataset (or unreadable): the other benchmarks' lookups may know it
    }
  }
  return out;
}

/** The single-shot gold answer of a HumanEval problem: its canonical body in a python fence. */
export function humanEvalGoldText(problem: HumanEvalProblem): string {
  return "```python\n" + problem.canonical_solution + "```\n";
}

export const humanEvalGold: GoldAnswerer = async (task, ctx) => {
  const taskId = task["task_id"];
  if (typeof taskId !== "string") throw new GoldError("humaneval task without a task_id");
  const named = typeof task["dataset"] === "string" ? task["dataset"] : undefined;
  return { text: humanEvalGoldText(await humanEvalProblem(taskId, named, ctx)) };
};

/** Where the interactive gold episode writes its solution (relative to the task's workdir). */
export const HUMANEVAL_SOLUTION_FILE = "solution.py";

/** Interactive gold: write the prompt and canonical solution to {@link HUMANEVAL_SOLUTION_FILE}, then the gold answer. */
export const humanEvalGoldEpisode: GoldEpisodePlanner = async (task, ctx) => {
  const problem = await humanEvalProblem(task.id, undefined, ctx);
  return {
    what: `writing ${HUMANEVAL_SOLUTION_FILE}`,
    steps: [
      { kind: "write_file", path: HUMANEVAL_SOLUTION_FILE, content: problem.prompt + problem.canonical_solution },
    ],
    output: humanEvalGoldText(problem),
  };
};
