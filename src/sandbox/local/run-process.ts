/**
 * Runs one launch command to completion and returns the flat outcome record:
 * output capped (the program is stopped past the cap), wall timeout and abort
 * kill the whole process group (bwrap's PID namespace takes everything inside
 * with it), the first termination reason wins.
 */
import { spawn } from "node:child_process";
import type { ExecOutcome } from "../types.js";
import type { LaunchCommand } from "./launch-command.js";
import { OutputTail } from "./output-tail.js";
import { judgeProof } from "../proof.js";

/** Bytes of the proof channel kept (a token is 32; more is a forgery anyway). */
const PROOF_CAP = 4096;

type Reason = "timeout" | "output" | "canceled";

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

/** Spawn, supervise and settle; never rejects (spawn failures become `infraError`). */
export function runProcess(opts: RunProcessOptions): Promise<ExecOutcome> {
  const started = performance.now();
  if (opts.signal?.aborted) return Promise.resolve(emptyOutcome({ isCanceled: true }));
  return new Promise((resolve) => {
    const child = spawn(opts.command.file, opts.command.args, {
      cwd: opts.command.spawnCwd,
      env: opts.env,
      detached: true, // own process group, killed as one
      stdio: opts.proofToken === undefined ? ["pipe", "pipe", "pipe"] : ["pipe", "pipe", "pipe", "pipe", "pipe"],
    });
    let proofData = "";
    if (opts.proofToken !== undefined) {
      const channel = child.stdio[3] as NodeJS.ReadableStream | null;
      const tokenPipe = child.stdio[4] as NodeJS.WritableStream | null;
      channel?.on("data", (c: Buffer) => {
        if (proofData.length < PROOF_CAP) proofData += c.toString("latin1").slice(0, PROOF_CAP - proofData.length);
      });
      channel?.on("error", () => {
        /* the program closed it */
      });
      tokenPipe?.on("error", () => {
        /* the program closed it early */
      });
      tokenPipe?.end(opts.proofToken);
    }
    const out = new OutputTail(opts.maxOutputBytes);
    const err = new OutputTail(opts.maxOutputBytes);
    let reason: Reason | undefined;
    let spawnError: Error | undefined;
    const kill = (why: Reason): void => {
      reason ??= why;
      // Untrusted code gets no grace period: SIGKILL the whole group at once.
      try {
        if (child.pid) process.kill(-child.pid, "SIGKILL");
      } catch {
        /* already gone */
      }
    };
    const timer = setTimeout(() => kill("timeout"), opts.timeoutMs);
    timer.unref();
    const onAbort = (): void => kill("canceled");
    opts.signal?.addEventListener("abort", onAbort, { once: true });
    child.stdout.on("data", (c: Buffer) => {
      if (out.push(c)) kill("output");
    });
    child.stderr.on("data", (c: Buffer) => {
      if (err.push(c)) kill("output");
    });
    child.stdin.on("error", () => {
      /* program closed stdin early */
    });
    child.stdin.end(opts.stdin ?? "");
    child.on("error", (e) => {
      spawnError = e;
    });
    child.on("close", (code, sig) => {
      clearTimeout(timer);
      opts.signal?.removeEventListener("abort", onAbort);
      // Leftovers of the group (outside bwrap's namespace) must not outlive the job.
      try {
        if (child.pid) process.kill(-child.pid, "SIGKILL");
      } catch {
        /* none left */
      }
      resolve({
        exitCode: code,
        signal: sig,
        timedOut: reason === "timeout",
        isCanceled: reason === "canceled",
        outputLimitExceeded: reason === "output",
        durationMs: Math.round(performance.now() - started),
        stdoutTail: out.text(),
        stderrTail: err.text(),
        ...(spawnError ? { infraError: `spawn ${opts.command.file}: ${spawnError.message}` } : {}),
        ...(opts.proofToken !== undefined && !spawnError ? judgeProof(proofData, opts.proofToken) : {}),
      });
    });
  });
}
