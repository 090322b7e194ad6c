/**
 * `gold` mode: answer each benchmark task with the dataset's reference
 * solution, as SWE-bench validates its harness with gold patches — a gold
 * run that does not score 100% exposes a harness bug, not a model's.
 *
 * One table entry per benchmark (GOLD_ANSWERERS). The task names its
 * benchmark and ids in the request's DataPart (or metadata); the dataset is
 * the one the request names (`sample`, `humaneval-full`, or a readable path)
 * or, failing that, one given to the purple CLI with `--dataset`.
 */
import type { Solver, SolverInput, SolverReply } from "../solver.js";
import type { SolverOptions } from "./index.js";
import { BenchError } from "../../util/errors.js";
import { loadHumanEval, SAMPLE_DATASET, type LoadedDataset } from "../../benchmarks/humaneval/dataset.js";
import type { HumanEvalProblem } from "../../benchmarks/humaneval/problem.js";
import { goldPatchFor } from "../../benchmarks/swebench/gold-lookup.js";
import { createInteractiveSolver, type InteractiveSolver } from "../interactive/interactive-solver.js";
import { goldEpisode } from "./gold-episode.js";

/** Looks up the reference answer of one task. */
export type GoldAnswerer = (task: Record<string, unknown>, ctx: GoldContext) => Promise<SolverReply>;

export interface GoldContext {
  /** Datasets given to the purple CLI (`--dataset`), tried after the request's own. */
  datasets: readonly string[];
  env: NodeJS.ProcessEnv;
}

/** Typed failure: no reference answer for this task. */
export class GoldError extends BenchError {
  constructor(message: string) {
    super("E_GOLD", message);
  }
}

const humanEvalCache = new Map<string, Promise<LoadedDataset>>();

function loadCached(dataset: string, env: NodeJS.ProcessEnv): Promise<LoadedDataset> {
  let p = humanEvalCache.get(dataset);
  if (!p) {
    p = loadHumanEval(dataset, env);
    p.catch(() => humanEvalCache.delete(dataset)); // a missing file may appear later
    humanEvalCache.set(dataset, p);
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

/** The single-shot gold answer of a HumanEval problem: its canonical body in a python fence. */
export function humanEvalGoldText(problem: HumanEvalProblem): string {
  return "```python\n" + problem.canonical_solution + "```\n";
}

async function humanEvalGold(task: Record<string, unknown>, ctx: GoldContext): Promise<SolverReply> {
  const taskId = task["task_id"];
  if (typeof taskId !== "string") throw new GoldError("humaneval task without a task_id");
  const named = typeof task["dataset"] === "string" ? task["dataset"] : undefined;
  return { text: humanEvalGoldText(await humanEvalProblem(taskId, named, ctx)) };
}

/** Benchmark name → reference-answer lookup. Add a benchmark with one entry. */
export const GOLD_ANSWERERS: Record<string, GoldAnswerer> = {
  humaneval: humanEvalGold,
  // The instance's gold `patch`, from purple's --dataset instance files or the embedded sample set.
  swebench: async (task, ctx) => ({
    text: "```diff\n" + (await goldPatchFor(String(task["instance_id"]), ctx.datasets)) + "```\n",
  }),
};

function taskOf(input: SolverInput): Record<string, unknown> {
  return input.data ?? input.metadata ?? {};
}

/** The single-shot gold solver: one reference answer per request. */
export function createSingleShotGoldSolver(ctx: GoldContext): Solver {
  return {
    mode: "gold",
    async solve(input) {
      const task = taskOf(input);
      const benchmark = task["benchmark"];
      if (typeof benchmark !== "string")
        throw new GoldError("the request names no benchmark (DataPart or metadata `benchmark`)");
      const answer = Object.hasOwn(GOLD_ANSWERERS, benchmark) ? GOLD_ANSWERERS[benchmark] : undefined;
      if (!answer) {
        throw new GoldError(
          `no gold answers for benchmark "${benchmark}" (known: ${Object.keys(GOLD_ANSWERERS).join(", ")})`,
        );
      }
      return answer(task, ctx);
    },
  };
}

/** Create the gold solver: interactive episodes (gold-episode.ts) for protocol messages, else single-shot. */
export function createGoldSolver(options: SolverOptions = {}): InteractiveSolver {
  const ctx: GoldContext = { datasets: options.datasets ?? [], env: options.env ?? process.env };
  return createInteractiveSolver("gold", () => goldEpisode(ctx), {
    ...options.episodes,
    singleShot: createSingleShotGoldSolver(ctx),
  });
}
