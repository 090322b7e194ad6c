import type { CliCommand } from "./types.js";
import { BenchError } from "../util/errors.js";

// Placeholder until this subcommand is built; it says so and fails.
export const command: CliCommand = {
  name: "smoke",
  summary: "(not built yet)",
  usage: "Usage: a2a-bench smoke (not built yet)",
  async run() {
    throw new BenchError("E_NOT_BUILT", "the smoke subcommand is not built yet");
  },
};
