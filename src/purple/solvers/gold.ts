/**
 * `gold` mode: answer each benchmark task with the dataset's reference
 * solution, as SWE-bench validates its harness with gold patches — a gold
 * run that does not score 100% exposes a harness bug, not a model's.
 *
 * Each benchmark names its reference answers in its descriptor (`gold`,
 * src/benchmarks/<name>/descriptor.ts); this solver asks the benchmark
 * registry. The task names its benchmark and ids in the request's DataPart
 * (or metadata); the dataset is the one the request names or, failing that,
 * one given to the purple CLI with `--dataset`.
 */
import type { Solver, SolverInput } from "../solver.js";
import type { SolverOptions } from "./options.js";
import { benchmarkDescriptors, findBenchmark } from "../../benchmarks/index.js";
import { GoldError, type GoldContext } from "../../benchmarks/gold.js";
import { createInteractiveSolver, type InteractiveSolver } from "../interactive/interactive-solver.js";
import { goldEpisode } from "./gold-episode.js";

export { GoldError, type GoldAnswerer, type GoldContext } from "../../benchmarks/gold.js";

/** Names of the benchmarks that have gold answers, in registry order. */
export function goldBenchmarks(): string[] {
  return benchmarkDescriptors()
    .filter((d) => d.gold !== undefined)
    .map((d) => d.name);
}

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
      const gold = findBenchmark(benchmark)?.gold;
      if (!gold) {
        throw new GoldError(`no gold answers for benchmark "${benchmark}" (known: ${goldBenchmarks().join(", ")})`);
      }
      return (await gold())(task, ctx);
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
