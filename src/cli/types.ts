import type { Writable } from "node:stream";

/** Streams a subcommand writes to (injected so tests capture output). */
export interface CliIo {
  stdout: Writable & { isTTY?: boolean };
  stderr: Writable & { isTTY?: boolean };
  env: NodeJS.ProcessEnv;
}

/** One subcommand of the `a2a-bench` CLI. */
export interface CliCommand {
  name: string;
  /** One line for the top-level help. */
  summary: string;
  /** Full `--help` text. */
  usage: string;
  /**
   * Run with the arguments after the subcommand name. Resolves to the exit
   * status. Throw a UsageError for bad usage (the dispatcher prints it, exits 2).
   * Long-running servers resolve only when they stop.
   */
  run(argv: string[], io: CliIo): Promise<number>;
  /**
   * Settings of the whole process for this command, applied by the CLI's dispatcher just before `run`
   * (never when a test calls `run` in its own process).
   */
  processSetup?: () => void;
}
