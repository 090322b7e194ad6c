/**
 * Run an installer (npm, pip) on the host as a child process with a time
 * limit and cancellation, collecting a bounded output tail. The child is
 * spawned detached and its whole process group is killed: npm and pip start
 * helpers of their own.
 */
import { spawn } from "node:child_process";

/** Grace between SIGTERM and SIGKILL, ms (execa's forceKillAfterDelay default is 5 s). */
export const KILL_GRACE_MS = 5_000;
/** Output kept per stream, characters. */
const TAIL_CHARS = 8_000;

export interface ToolOutcome {
  exitCode: number | null;
  signal: string | null;
  timedOut: boolean;
  isCanceled: boolean;
  /** Set when the program could not be started (e.g. ENOENT). */
  spawnError?: string;
  durationMs: number;
  stdoutTail: string;
  stderrTail: string;
}

export interface ToolRequest {
  command: string;
  args: string[];
  cwd?: string;
  env: NodeJS.ProcessEnv;
  /** Wall-clock limit, ms. */
  timeoutMs: number;
  signal?: AbortSignal;
}

/** Run to completion; never rejects (failures are in the outcome). */
export function runTool(req: ToolRequest): Promise<ToolOutcome> {
  const started = performance.now();
  return new Promise((resolve) => {
    let stdout = "";
    let stderr = "";
    let reason: "timeout" | "cancel" | undefined;
    let killTimer: NodeJS.Timeout | undefined;
    const child = spawn(req.command, req.args, {
      cwd: req.cwd,
      env: req.env,
      detached: true,
      stdio: ["ignore", "pipe", "pipe"],
    });
    const killGroup = (sig: NodeJS.Signals): void => {
      try {
        if (child.pid !== undefined) process.kill(-child.pid, sig);
      } catch {
        // already gone
      }
    };
    const stop = (why: "timeout" | "cancel"): void => {
      reason ??= why;
      killGroup("SIGTERM");
      killTimer ??= setTimeout(() => killGroup("SIGKILL"), KILL_GRACE_MS);
      killTimer.unref();
    };
    const timer = setTimeout(() => stop("timeout"), req.timeoutMs);
    timer.unref();
    const onAbort = (): void => stop("cancel");
    req.signal?.addEventListener("abort", onAbort, { once: true });
    if (req.signal?.aborted) onAbort();
    child.stdout.setEncoding("utf8").on("data", (d: string) => (stdout = (stdout + d).slice(-TAIL_CHARS)));
    child.stderr.setEncoding("utf8").on("data", (d: string) => (stderr = (stderr + d).slice(-TAIL_CHARS)));
    const finish = (exitCode: number | null, signal: string | null, spawnError?: string): void => {
      clearTimeout(timer);
      if (killTimer) clearTimeout(killTimer);
      req.signal?.removeEventListener("abort", onAbort);
      resolve({
        exitCode,
        signal,
        timedOut: reason === "timeout",
        isCanceled: reason === "cancel",
        ...(spawnError !== undefined ? { spawnError } : {}),
        durationMs: performance.now() - started,
        stdoutTail: stdout,
        stderrTail: stderr,
      });
    };
    child.once("error", (err) => finish(null, null, err.message));
    child.once("close", (code, signal) => finish(code, signal));
  });
}
