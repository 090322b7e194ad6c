/** SPARC 2.0 test cases: programs a config file carries, run and checked against their expected output. */
import { defineBenchmark } from "../descriptor.js";

export const sparc = defineBenchmark({
  name: "sparc",
  summary: "the programs of a SPARC 2.0 BenchmarkConfig, run and checked against their expected output",
  interactions: ["single_shot"],
  // A SPARC config carries its programs.
  needsParticipant: () => false,
  rowSchema: "sparc_row",
  resultsSchema: async () => (await import("./row-schema.js")).sparcRowSchema,
  sandboxNeeds: [],
  hostNeeds: () => [],
  runner: { kind: "built-in", load: async () => (await import("./definition.js")).sparcBenchmark },
});
