/**
 * Runs one launch command to completion on the shared process layer and
 * returns the sandbox's flat outcome record: output capped (the program is
 * stopped past the cap), wall timeout and abort SIGKILL the whole process
 * group at once (untrusted code gets no grace; bwrap's PID namespace takes
 * everything inside with it), the first termination reason wins, and what is
 * left of the group once the pipes close is killed. What stays special here is
 * the pass-proof channel: two extra pipes (fd 3 read, fd 4 written).
 */
import type { Readable, Writable } from "node:stream";
import type { ExecOutcome } from "../types.js";
import type { LaunchCommand } from "./launch-command.js";
import { judgeProof } from "../proof.js";
import { startChild, type ProcessOutcome } from "../../process/index.js";

/** Bytes of the proof channel kept (a token is 32; more is a forgery anyway). */
const PROOF_CAP = 4096;

export interface RunProcessOptions {
  command: LaunchCommand;
  env: Record<string, string>;
  stdin?: string;
  timeoutMs: number;
  maxOutputBytes: number;
  signal?: AbortSignal;
  /**
   * Pass proof: the token is written to the child's fd 4 (then closed) and the child's fd 3 is read
   * as the proof channel (see proof-wrappers.ts); the outcome then carries `proof`.
   */
  proofToken?: string;
}

/** Outcome used when nothing ran (infrastructure failure or canceled before start). */
export function emptyOutcome(patch: Partial<ExecOutcome>): ExecOutcome {
  return {
    exitCode: null,
    signal: null,
    timedOut: false,
    isCanceled: false,
    outputLimitExceeded: false,
    durationMs: 0,
    stdoutTail: "",
    stderrTail: "",
    ...patch,
  };
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

/** Wire the proof pipes: collect fd 3 (bounded), write the token to fd 4. Returns what fd 3 carried so far. */
function proofChannel(stdio: readonly unknown[], token: string): () => string {
  let data = "";
  const channel = stdio[3] as Readable | null;
  const tokenPipe = stdio[4] as Writable | null;
  channel?.on("data", (c: Buffer) => {
    if (data.length < PROOF_CAP) data += c.toString("latin1").slice(0, PROOF_CAP - data.length);
  });
  // The program may close either end early.
  channel?.on("error", () => {});
  tokenPipe?.on("error", () => {});
  tokenPipe?.end(token);
  return () => data;
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
    extraPipes: opts.proofToken === undefined ? 0 : 2,
    timeoutMs: opts.timeoutMs,
    graceMs: 0,
    leftovers: "kill-after-close",
    ...(opts.signal ? { signal: opts.signal } : {}),
  });
  const proof = opts.proofToken !== undefined && run.child ? proofChannel(run.child.stdio, opts.proofToken) : undefined;
  const outcome = await run.done;
  return {
    ...toExecOutcome(outcome, opts.command.file),
    ...(proof && opts.proofToken !== undefined && outcome.spawnError === null
      ? judgeProof(proof(), opts.proofToken)
      : {}),
  };
}
