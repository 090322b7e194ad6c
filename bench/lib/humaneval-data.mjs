/**
 * The 164 HumanEval problems, and their gold completions scored exactly as the
 * runner scores them: the batch replay of dist's benchmarks/humaneval
 * (trusted checker records check()'s calls, the sandbox runs prompt +
 * completion on them, the checker replays check() on the answers). The
 * dataset is read at run time from $A2A_BENCH_DATASETS, never committed.
 */
import { existsSync } from "node:fs";
import { join } from "node:path";
import { DIST } from "./paths.mjs";

const { loadHumanEval, fullDatasetPath } = await import(join(DIST, "benchmarks/humaneval/dataset.js"));
export const { HumanEvalChecker, CHECKER_PROGRAM_SHA256 } = await import(join(DIST, "benchmarks/humaneval/checker.js"));
const { CallsCache } = await import(join(DIST, "benchmarks/humaneval/calls-cache.js"));
const { replayCompletions } = await import(join(DIST, "benchmarks/humaneval/replay.js"));
const { classifyReplay } = await import(join(DIST, "benchmarks/humaneval/classify.js"));
const { answerFiles, buildAnswerProgram } = await import(join(DIST, "benchmarks/humaneval/answer-program.js"));

/** The original harness's per-task limit, ms. */
export const TASK_TIMEOUT_MS = 3000;

/** Path of HumanEval.jsonl.gz, or null when absent. */
export function humanEvalPath() {
  const p = fullDatasetPath(process.env);
  return existsSync(p) ? p : null;
}

/** The 164 problems. */
export async function goldProblems() {
  return (await loadHumanEval("humaneval-full", process.env)).problems;
}

/**
 * Score each problem's canonical solution on `sandbox` with a checker (by default a fresh one; closed
 * inside, as a run does), every task in flight at once; the sandbox bounds concurrency.
 * With `callsCacheDir` the recorded calls are read from (and written back to) the calls cache there, as a run
 * does with its default cache; without it every task is recorded.
 * Returns how many passed and each answer job's sandbox run time.
 */
export async function scoreGold(sandbox, problems, checker = new HumanEvalChecker(), callsCacheDir = null) {
  let cache = null;
  try {
    if (callsCacheDir !== null) {
      const { sha256 } = await loadHumanEval("humaneval-full", process.env);
      const python = await checker.interpreter();
      cache = new CallsCache({ dir: callsCacheDir, checker: CHECKER_PROGRAM_SHA256, dataset: sha256, python });
    }
    const record = (p) => checker.record(p);
    const plan = cache ? (p) => cache.plan(p, record) : record;
    const deps = { sandbox, checker, plan, answerCodec: () => checker.answerCodec(), timeoutMs: TASK_TIMEOUT_MS };
    // Task by task, as the runner scores (each task's job starts as soon as its calls are recorded:
    // measured faster here than recording everything first and running one execMany of all 164).
    const results = await Promise.all(problems.map((p) => replayCompletions(p, [p.canonical_solution], deps)));
    const flat = results.map((r, i) => ({ r: r[0], p: problems[i] }));
    return {
      passed: flat.filter(({ r, p }) => classifyReplay(r, p.entry_point).status === "passed").length,
      durations: flat.map(({ r }) => r.outcome?.durationMs ?? 0),
    };
  } finally {
    await checker.close();
    await cache?.flush();
  }
}

/** The gold answer jobs as ExecRequests (calls recorded once by a checker), for backends measured on execMany alone. */
export async function goldAnswerRequests(problems) {
  const checker = new HumanEvalChecker();
  try {
    return await Promise.all(
      problems.map(async (p) => ({
        language: "python",
        code: buildAnswerProgram(p, p.canonical_solution, await checker.answerCodec()),
        files: answerFiles(await checker.record(p)),
        timeoutMs: TASK_TIMEOUT_MS,
      })),
    );
  } finally {
    await checker.close();
  }
}
