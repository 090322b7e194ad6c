/**
 * One flat record per runner process, the same shape on success and failure
 * (execa's result): how it ended, why, how long it took, its last lines.
 */
export type TerminationReason = "cancel" | "timeout" | "shutdown";

export interface RunnerOutcome {
  /** Exit code of the runner, null when it died by a signal or never started. */
  exitCode: number | null;
  /** Signal that ended the runner, if any. */
  signal: NodeJS.Signals | null;
  /** The first reason we terminated it (cancel/timeout/shutdown), null if it ended on its own. */
  terminationReason: TerminationReason | null;
  timedOut: boolean;
  isCanceled: boolean;
  /** SIGKILL was needed after the grace period. */
  isForcefullyTerminated: boolean;
  /** The process could not be started (ENOENT, EACCES...): the message. */
  spawnError: string | null;
  startedAtMs: number;
  finishedAtMs: number;
  durationMs: number;
  /** Last lines of non-event output (stdout + stderr), oldest first. */
  outputTail: string[];
}

/** Short human description: "exit code 3", "killed by SIGKILL", "could not start: ...". */
export function describeOutcome(o: RunnerOutcome): string {
  if (o.spawnError) return `could not start: ${o.spawnError}`;
  const how = o.signal ? `killed by ${o.signal}` : `exit code ${o.exitCode ?? "unknown"}`;
  if (o.terminationReason) return `${how} after ${o.terminationReason}${o.isForcefullyTerminated ? " (forced)" : ""}`;
  return how;
}
