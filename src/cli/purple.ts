import type { CliCommand } from "./types.js";
import { BenchError } from "../util/errors.js";

// Placeholder until this subcommand is built; it says so and fails.
export const command: CliCommand = {
  name: "purple",
  summary: "(not built yet)",
  usage: "Usage: a2a-bench purple (not built yet)",
  async run() {
    throw new BenchError("E_NOT_BUILT", "the purple subcommand is not built yet");
  },
};
