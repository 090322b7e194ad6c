/**
 * Runs one launch command to completion on the shared process layer and
 * returns the sandbox's flat outcome record: output capped (the program is
 * stopped past the cap), wall timeout and abort SIGKILL the whole process
 * group at once (untrusted code gets no grace; bwrap's PID namespace takes
 * everything inside with it), the first termination reason wins, and what is
 * left of the group once the pipes close is killed.
 */
import { emptyOutcome, type ExecOutcome } from "../types.js";
import type { LaunchCommand } from "./launch-command.js";
import { startChild, type ProcessOutcome } from "../../process/index.js";

export interface RunProcessOptions {
  command: LaunchCommand;
  env: Record<string, string>;
  stdin?: string;
  timeoutMs: number;
  maxOutputBytes: number;
  signal?: AbortSignal;
}

/** The sandbox's projection of the process record: tails named as such, a start failure as `infraError`. */
export function toExecOutcome(o: ProcessOutcome, file: string): ExecOutcome {
  return {
    exitCode: o.exitCode,
    signal: o.signal,
    timedOut: o.timedOut,
    isCanceled: o.isCanceled,
    outputLimitExceeded: o.outputLimitExceeded,
    durationMs: o.durationMs,
    stdoutTail: o.stdout,
    stderrTail: o.stderr,
    ...(o.spawnError !== null ? { infraError: `spawn ${file}: ${o.spawnError}` } : {}),
  };
}

/** Spawn, supervise and settle; never rejects (spawn failures become `infraError`). */
export async function runProcess(opts: RunProcessOptions): Promise<ExecOutcome> {
  if (opts.signal?.aborted) return emptyOutcome({ isCanceled: true });
  const cap = { tail: opts.maxOutputBytes, stopWhenFull: true };
  const run = startChild({
    file: opts.command.file,
    args: opts.command.args,
    cwd: opts.command.spawnCwd,
    env: opts.env,
    stdin: { input: opts.stdin ?? "" },
    stdout: cap,
    stderr: cap,
    timeoutMs: opts.timeoutMs,
    graceMs: 0,
    leftovers: "kill-after-close",
    ...(opts.signal ? { signal: opts.signal } : {}),
  });
  return toExecOutcome(await run.done, opts.command.file);
}
