/**
 * What the participant is sent for one HumanEval task: the prompt with a
 * short instruction as text, and `{benchmark, task_id, entry_point, dataset,
 * sample_index}` both as a DataPart and as message metadata (agents read
 * either). `sample_index` (0 .. n-1) tells the participant which of the task's
 * n samples it is answering, so a seeded sampler can vary its seed per sample.
 */
import type { ParticipantRequest } from "../../a2a/shared/participant.js";
import type { HumanEvalProblem } from "./problem.js";

export const INSTRUCTION =
  "Complete the following Python function. Reply with the complete function (signature included) " +
  "in one ```python code block; you may import from the standard library.";

export function buildRequest(problem: HumanEvalProblem, dataset: string, sampleIndex = 0): ParticipantRequest {
  const data = {
    benchmark: "humaneval",
    task_id: problem.task_id,
    entry_point: problem.entry_point,
    dataset,
    sample_index: sampleIndex,
  };
  return { text: `${INSTRUCTION}\n\n${problem.prompt}`, data, metadata: { ...data } };
}
