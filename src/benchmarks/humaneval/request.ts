/**
 * What the participant is sent for one HumanEval task: the prompt with a
 * short instruction as text, and `{benchmark, task_id, entry_point, dataset}`
 * both as a DataPart and as message metadata (agents read either).
 */
import type { ParticipantRequest } from "../../runner/participant.js";
import type { HumanEvalProblem } from "./problem.js";

export const INSTRUCTION =
  "Complete the following Python function. Reply with the complete function (signature included) " +
  "in one ```python code block; you may import from the standard library.";

export function buildRequest(problem: HumanEvalProblem, dataset: string): ParticipantRequest {
  const data = { benchmark: "humaneval", task_id: problem.task_id, entry_point: problem.entry_point, dataset };
  return { text: `${INSTRUCTION}\n\n${problem.prompt}`, data, metadata: { ...data } };
}
