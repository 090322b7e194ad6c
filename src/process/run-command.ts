/**
 * A short trusted command run to completion (a probe, `chown -R`, an import
 * check, a `docker` CLI call): the defaults of node's `execFile`, on the
 * process layer. Its own group; stdout and stderr kept up to a cap each, and
 * stopped when it writes more (execFile's `maxBuffer` fails the call the same
 * way); a time limit; SIGKILL at once on timeout or cancel (a trusted tool
 * has nothing to save, and a grace would only delay the caller).
 */
import { runChild } from "./spawn-child.js";
import type { StopWork } from "./terminate.js";
import type { ProcessOutcome } from "./outcome.js";
import { checkBytes } from "./options.js";

/** Default cap of each of stdout and stderr, bytes: execFile's `maxBuffer` (1 MiB). */
export const COMMAND_OUTPUT_BYTES = 1024 * 1024;

export interface CommandOptions {
  /** Wall-clock limit, ms (required: a probe that hangs must not hang its caller). */
  timeoutMs: number;
  /** Default process.env (as execFile). */
  env?: NodeJS.ProcessEnv;
  cwd?: string;
  /** Written to stdin, then closed; without it stdin is not opened. */
  input?: string | Buffer;
  /** Bytes kept of each stream; default {@link COMMAND_OUTPUT_BYTES}. */
  maxOutputBytes?: number;
  /** Past the cap: "stop" (default) terminates it with reason "output"; "tail" keeps the last bytes and lets it run. */
  overflow?: "stop" | "tail";
  /** Aborting it kills the command (reason "cancel"). */
  signal?: AbortSignal;
  /** SIGTERM → SIGKILL grace, ms; default 0 (SIGKILL at once). */
  graceMs?: number;
  /** Stops the work a client child drives, before it is killed (see ChildOptions.stopWork). */
  stopWork?: StopWork;
}

/** Run `file args` to completion; never rejects for the command's failure (see the record, or {@link succeeded}). */
export function runCommand(file: string, args: readonly string[], options: CommandOptions): Promise<ProcessOutcome> {
  const cap = options.maxOutputBytes ?? COMMAND_OUTPUT_BYTES;
  checkBytes("maxOutputBytes", cap);
  const capture = { tail: cap, stopWhenFull: (options.overflow ?? "stop") === "stop" };
  return runChild({
    file,
    args,
    env: options.env ?? process.env,
    ...(options.cwd !== undefined ? { cwd: options.cwd } : {}),
    ...(options.input !== undefined ? { stdin: { input: options.input } } : {}),
    stdout: capture,
    stderr: capture,
    timeoutMs: options.timeoutMs,
    graceMs: options.graceMs ?? 0,
    ...(options.signal ? { signal: options.signal } : {}),
    ...(options.stopWork ? { stopWork: options.stopWork } : {}),
  });
}
