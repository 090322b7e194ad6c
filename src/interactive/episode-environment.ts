/**
 * The one door between the episode loop and whatever hosts the task's
 * environment (a container of the run's sandbox, a pod, a remote VM). The
 * loop never learns which: a backend adapter implements this interface.
 *
 * Contract for an adapter (docs/interactive.md):
 * - each command runs in a FRESH `bash -lc` in the task's working directory (`cd` and
 *   exported variables do not persist; files do), mini-swe-agent's and RDI's rule;
 * - `timeoutS` stops the command, and the environment must survive it (a backend
 *   whose own timeout ends the environment runs the command under an in-shell
 *   `timeout` a little shorter than its own limit), with the output printed until
 *   then kept and `timedOut: true`;
 * - aborting `signal` stops the command promptly (the episode is being cancelled);
 * - never rejects: a failure of the backend (not of the command) is `infraError`,
 *   which ends the episode `environment_error`.
 */

/** Flat outcome of one command, the same shape on success and failure. */
export interface CommandOutcome {
  /** The command's exit code; null when it was stopped (timeout, abort) or never ran. */
  exitCode: number | null;
  stdout: string;
  stderr: string;
  timedOut: boolean;
  durationMs: number;
  /** The backend failed (not the command): its message. Ends the episode. */
  infraError?: string;
  /**
   * The environment outgrew a limit the participant must keep (its disk): the message. The command was
   * stopped and the environment ended; ends the episode `resource_limit` (the participant's failure).
   */
  limitExceeded?: string;
}

export interface EpisodeEnvironment {
  /** Run `command` (a shell command line) with a limit of `timeoutS` seconds. Never rejects. */
  run(command: string, timeoutS: number, signal: AbortSignal): Promise<CommandOutcome>;
  /**
   * Optional: asked once after the last command — the limit the participant broke (a check the backend
   * makes after each command and has not reported yet), or null. Never rejects.
   */
  limitProblem?(): Promise<string | null>;
}
