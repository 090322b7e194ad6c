/**
 * The 164 HumanEval problems and their gold programs, built exactly as the
 * runner builds them (dist's loadHumanEval + buildProgram). The dataset is
 * read at run time from $A2A_BENCH_DATASETS, never committed.
 */
import { existsSync } from "node:fs";
import { join } from "node:path";
import { DIST } from "./paths.mjs";

const { loadHumanEval, fullDatasetPath } = await import(join(DIST, "benchmarks/humaneval/dataset.js"));
const { buildProgram } = await import(join(DIST, "benchmarks/humaneval/program.js"));

/** Path of HumanEval.jsonl.gz, or null when absent. */
export function humanEvalPath() {
  const p = fullDatasetPath(process.env);
  return existsSync(p) ? p : null;
}

/** The problems and their gold ExecRequests (per-task timeout 3 s, the original harness's default). */
export async function goldRequests() {
  const ds = await loadHumanEval("humaneval-full", process.env);
  return {
    problems: ds.problems,
    requests: ds.problems.map((p) => ({
      language: "python",
      code: buildProgram(p, p.canonical_solution),
      timeoutMs: 3000,
    })),
  };
}
