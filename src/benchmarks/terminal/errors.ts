/** Typed errors of the terminal benchmark. */
import { BenchError } from "../../util/errors.js";

/** A task directory is not a task we can read (no task.toml, bad TOML, no instruction or tests). */
export class TerminalTaskError extends BenchError {
  constructor(message: string) {
    super("E_TERMINAL_TASK", message);
  }
}

/** A task's environment could not be built or started: ours (or the dataset's), never the participant's. */
export class TerminalEnvironmentError extends BenchError {
  constructor(code: "E_TERMINAL_BASE_IMAGE" | "E_TERMINAL_BUILD" | "E_TERMINAL_BUILD_TIMEOUT", message: string) {
    super(code, message);
  }
}

/** The verifier ran but gave no reward we can read (it crashed): ours or the task's, never the participant's. */
export class TerminalVerifierError extends BenchError {
  /**
   * @param killed a harness step in the environment was killed (exit 137: out of memory, SIGKILL). After the
   * episode's processes were ended only what the participant left (a full tmpfs) does that: its failure.
   */
  constructor(
    message: string,
    readonly killed = false,
  ) {
    super("E_TERMINAL_VERIFIER", message);
  }
}
