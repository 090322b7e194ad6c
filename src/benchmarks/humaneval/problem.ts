/** One HumanEval problem, with the field names of the official JSONL. */
export interface HumanEvalProblem {
  task_id: string;
  /** Function signature and docstring; the completion is appended to it. */
  prompt: string;
  entry_point: string;
  /** Reference body (what `gold` answers). */
  canonical_solution: string;
  /** Defines `check(candidate)`. */
  test: string;
}
