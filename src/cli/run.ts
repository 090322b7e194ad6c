import type { CliCommand } from "./types.js";
import { BenchError } from "../util/errors.js";

// Placeholder until this subcommand is built; it says so and fails.
export const command: CliCommand = {
  name: "run",
  summary: "(not built yet)",
  usage: "Usage: a2a-bench run (not built yet)",
  async run() {
    throw new BenchError("E_NOT_BUILT", "the run subcommand is not built yet");
  },
};
