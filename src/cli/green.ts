import type { CliCommand } from "./types.js";
import { BenchError } from "../util/errors.js";

// Placeholder until this subcommand is built; it says so and fails.
export const command: CliCommand = {
  name: "green",
  summary: "(not built yet)",
  usage: "Usage: a2a-bench green (not built yet)",
  async run() {
    throw new BenchError("E_NOT_BUILT", "the green subcommand is not built yet");
  },
};
