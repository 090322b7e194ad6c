import type { CliCommand } from "./types.js";
import { BenchError } from "../util/errors.js";

// Placeholder until this subcommand is built; it says so and fails.
export const command: CliCommand = {
  name: "scenario",
  summary: "(not built yet)",
  usage: "Usage: a2a-bench scenario (not built yet)",
  async run() {
    throw new BenchError("E_NOT_BUILT", "the scenario subcommand is not built yet");
  },
};
