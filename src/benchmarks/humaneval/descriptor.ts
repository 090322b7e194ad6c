/** HumanEval (OpenAI, 2021): complete a python function; scored by its unit tests, pass@k. */
import { defineBenchmark } from "../descriptor.js";

export const humaneval = defineBenchmark({
  name: "humaneval",
  summary: "complete a python function from its docstring; pass@k over its unit tests",
  // Interactive: each sample an episode in its own environment (episode.ts); the answer is graded on the host.
  interactions: ["single_shot", "interactive"],
  // A samples file (`predictions`) replaces the participant.
  needsParticipant: (config) => !config.predictions,
  rowSchema: "humaneval_row",
  resultsSchema: async () => (await import("./row-schema.js")).humanevalRowSchema,
  datasets: "a .jsonl/.jsonl.gz file, or `humaneval-full` for the official 164 problems",
  sandboxNeeds: [],
  // Each program's limit: the original harness's 3 s.
  defaults: { per_task_timeout_seconds: 3 },
  // The trusted checker runs on the host with every backend (checker.ts).
  hostNeeds: () => [
    {
      kind: "program",
      tool: "python3",
      fix: "install python3 on the host: HumanEval's checker runs there (`apt-get install -y python3`)",
    },
  ],
  gold: async () => (await import("./gold.js")).humanEvalGold,
  goldEpisode: async () => (await import("./gold.js")).humanEvalGoldEpisode,
  runner: { kind: "built-in", load: async () => (await import("./definition.js")).createHumanEvalBenchmark() },
});
