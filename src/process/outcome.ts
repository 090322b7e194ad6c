/**
 * One flat record per child process, the same shape on success and failure
 * (execa's result): how it ended, why, how long it took, what it printed.
 * Each caller's outcome type is this record or a documented projection of it.
 */

/** Why we ended a child: cancel (caller's AbortSignal), timeout, shutdown (of our own process), output (over its cap). */
export type TerminationReason = "cancel" | "timeout" | "shutdown" | "output";

export interface ProcessOutcome {
  /** Exit code, null when the child died by a signal or never started. */
  exitCode: number | null;
  /** Signal that ended the child, if any. */
  signal: NodeJS.Signals | null;
  /** The first reason we terminated it, null if it ended on its own. */
  terminationReason: TerminationReason | null;
  timedOut: boolean;
  /** Canceled by the caller or by our shutdown. */
  isCanceled: boolean;
  /** SIGKILL was sent to the group (after the grace, or at once with a grace of 0). */
  isForcefullyTerminated: boolean;
  /** Output passed its cap and the child was stopped. */
  outputLimitExceeded: boolean;
  /** The process could not be started (ENOENT, EACCES...): the message. */
  spawnError: string | null;
  /** Wall-clock start and end, ms since the epoch. */
  startedAtMs: number;
  finishedAtMs: number;
  /** Monotonic duration, ms (rounded). */
  durationMs: number;
  /** Captured stdout: all of it or its tail, per the capture mode; "" when streamed as lines or not captured. */
  stdout: string;
  /** Captured stderr, as `stdout` ("" when merged into stdout). */
  stderr: string;
  /**
   * Bytes the child wrote to stdout, kept or not (stdout and stderr when
   * merged); more than `stdout` holds when a tail was cut.
   * 0 where we do not read the stream ("ignore", "pipe").
   */
  stdoutBytes: number;
  /** Bytes the child wrote to stderr, as `stdoutBytes` (0 when merged into stdout). */
  stderrBytes: number;
}

/**
 * The green runner's outcome: the record without byte captures (its output is
 * streamed as lines), plus the last lines of non-event output.
 */
export type RunnerOutcome = Omit<
  ProcessOutcome,
  "stdout" | "stderr" | "stdoutBytes" | "stderrBytes" | "outputLimitExceeded"
> & {
  /** Last lines of non-event output (stdout + stderr), oldest first. */
  outputTail: string[];
};

/** Short human description: "exit code 3", "killed by SIGKILL", "could not start: ...". */
export function describeOutcome(
  o: Pick<ProcessOutcome, "spawnError" | "signal" | "exitCode" | "terminationReason" | "isForcefullyTerminated">,
): string {
  if (o.spawnError) return `could not start: ${o.spawnError}`;
  const how = o.signal ? `killed by ${o.signal}` : `exit code ${o.exitCode ?? "unknown"}`;
  if (o.terminationReason) return `${how} after ${o.terminationReason}${o.isForcefullyTerminated ? " (forced)" : ""}`;
  return how;
}

/** It ran and exited 0 on its own: started, not terminated by us, no signal. */
export function succeeded(o: Pick<ProcessOutcome, "spawnError" | "exitCode" | "terminationReason">): boolean {
  return o.spawnError === null && o.terminationReason === null && o.exitCode === 0;
}
