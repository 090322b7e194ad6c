/**
 * The bundle's `exit_code`, `status` and `status_reason`: the runner process
 * first (it may have died), then the results file's own verdict. Only `ok`
 * is a score.
 */
import { constants as osConstants } from "node:os";
import type { RunnerOutcome } from "../process/outcome.js";
import type { BundleError } from "./bundle-errors.js";
import type { RunResults } from "./run-results.js";

/** `ok`: a score. `error`: infrastructure failed (results.json says why). `runner_failed`: crash/non-zero exit. `timed_out`: the assessment time limit. */
export type BundleStatus = "ok" | "error" | "runner_failed" | "timed_out";

/** Characters of the runner's last output line quoted in a reason at most. */
const MAX_QUOTED_LINE_CHARS = 500;

/** Exit status as a shell reports it: the code, 128+n for signal n, 127 when it never started. */
export function shellExitCode(o: RunnerOutcome): number {
  if (o.spawnError) return 127;
  if (o.exitCode !== null) return Math.min(255, Math.max(0, o.exitCode));
  if (o.signal) return 128 + (osConstants.signals[o.signal] ?? 0);
  return 1;
}

/** Last non-empty output line (the runner's own error message, usually). */
function lastLine(tail: readonly string[]): string | null {
  for (let i = tail.length - 1; i >= 0; i--) {
    const line = tail[i]?.trim();
    if (line) return line.length > MAX_QUOTED_LINE_CHARS ? `${line.slice(0, MAX_QUOTED_LINE_CHARS)}…` : line;
  }
  return null;
}

/** The results file's reason for status `error`: its message and code. */
function verdictReason(results: RunResults | null): string | null {
  const err = results?.verdict?.error;
  return err ? `${err.message} [${err.code}]` : null;
}

/** Status and reason: the runner process first (it may have died), then the results file's verdict. */
export function statusOf(
  o: RunnerOutcome,
  results: RunResults | null,
  exitCode: number,
  errors: readonly BundleError[],
): { status: BundleStatus; reason: string | null } {
  if (o.timedOut)
    return {
      status: "timed_out",
      reason: `runner exceeded the assessment time limit after ${(o.durationMs / 1000).toFixed(1)} s and was stopped`,
    };
  if (o.spawnError) return { status: "runner_failed", reason: `runner could not start: ${o.spawnError}` };
  if (results?.verdict?.status === "error")
    return { status: "error", reason: verdictReason(results) ?? "the runner reported status error" };
  if (exitCode !== 0) {
    const last = lastLine(o.outputTail);
    return {
      status: "runner_failed",
      reason: `${errors[0]?.error ?? `runner exited with code ${exitCode}`}${last ? `: ${last}` : ""}`,
    };
  }
  const fileProblem = errors.find((e) => e.package_id === null);
  if (fileProblem) return { status: "error", reason: fileProblem.error };
  return { status: "ok", reason: null };
}
