/** Terminal: Harbor / Terminal-Bench task directories, the participant acting in each task's own environment. */
import { defineBenchmark } from "../descriptor.js";

export const terminal = defineBenchmark({
  name: "terminal",
  summary: "act in a Harbor / Terminal-Bench task's container until its verifier passes; reward mean, pass@k",
  interactions: ["interactive"],
  needsParticipant: () => true,
  rowSchema: "terminal_row",
  resultsSchema: async () => (await import("./row-schema.js")).terminalRowSchema,
  datasets: "a directory of Harbor / Terminal-Bench task directories (or one task directory)",
  // Each task's environment is built from its Dockerfile and started from that image.
  sandboxNeeds: ["environments", "images"],
  hostNeeds: () => [],
  // The oracle: the task's solution/ files written to /solution, then `bash /solution/solve.sh`.
  goldEpisode: async () => (await import("./gold.js")).terminalGoldEpisode,
  runner: { kind: "built-in", load: async () => (await import("./definition.js")).createTerminalBenchmark() },
});
