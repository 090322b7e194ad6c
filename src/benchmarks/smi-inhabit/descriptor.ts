/**
 * smi_bench's `smi-inhabit`: an external runner the operator configures
 * (GREEN_SMI_INHABIT_COMMAND, never the request; src/green/runner-command.ts).
 * It writes its own results (schemas/smi_results.schema.json) and brings its own tools.
 */
import { defineBenchmark } from "../descriptor.js";

export const smiInhabit = defineBenchmark({
  name: "smi-inhabit",
  summary: "smi_bench's external runner (the operator's command)",
  interactions: ["single_shot"],
  needsParticipant: () => true,
  rowSchema: null,
  sandboxNeeds: [],
  hostNeeds: () => [],
  runner: { kind: "external" },
});
