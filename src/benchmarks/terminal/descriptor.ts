/** Terminal: Harbor / Terminal-Bench task directories, the participant acting in each task's own environment. */
import { defineBenchmark } from "../descriptor.js";

export const terminal = defineBenchmark({
  name: "terminal",
  summary: "act in a Harbor / Terminal-Bench task's container until its verifier passes; reward mean, pass@k",
  interactions: ["interactive"],
  needsParticipant: () => true,
  rowSchema: "terminal_row",
  // Each task's environment is built from its Dockerfile and started from that image.
  sandboxNeeds: ["environments", "images"],
  hostNeeds: () => [],
  runner: { kind: "built-in", load: async () => (await import("./definition.js")).createTerminalBenchmark() },
});
