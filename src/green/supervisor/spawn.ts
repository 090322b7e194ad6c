/**
 * Start a runner in its own process group and supervise it to the end.
 *
 * - `detached: true` makes the runner a group leader; termination signals the
 *   whole group, so grandchildren die with it.
 * - stdout is split into lines: `A2A_EVENT:` lines go to `onEvent`, every other
 *   line (stdout and stderr) to a ring buffer whose tail ends in the outcome.
 * - stdin stays an open pipe that we never write: if the green agent dies, even
 *   by SIGKILL, the kernel closes it and the runner sees EOF. The runner side
 *   must exit on stdin EOF (our built-in runner does; an arbitrary external
 *   command may not — that is the limit of this mechanism).
 * - terminate(): SIGTERM to the group, SIGKILL after the grace period; the
 *   timer is cleared (and unref'd) as soon as the group is gone; the first
 *   reason wins.
 */
import { spawn } from "node:child_process";
import { RingBuffer } from "../../util/ring-buffer.js";
import { parseRunnerLine, type RunnerEvent } from "../../runner/protocol.js";
import { splitLines } from "./line-splitter.js";
import { killGroup, waitGroupGone } from "./kill-group.js";
import type { RunnerOutcome, TerminationReason } from "./outcome.js";

/** Lines of runner output kept for the bundle's `runner_output_tail` (smi_bench keeps 200). */
export const OUTPUT_TAIL_LINES = 200;
/** Default grace between SIGTERM and SIGKILL on cancel, ms (smi_bench waits 5 s). */
export const DEFAULT_GRACE_MS = 5_000;
/**
 * After the runner leader exits on its own, leftover group members get this
 * long after SIGTERM before SIGKILL, ms.
 */
export const LEFTOVER_GRACE_MS = 1_000;
/** Longest wait for the output pipes to drain after the group is gone, ms. */
export const PIPE_DRAIN_MS = 5_000;

export interface SpawnRunnerOptions {
  command: string;
  args: string[];
  cwd: string;
  env: NodeJS.ProcessEnv;
  /** A parsed `A2A_EVENT:` line. */
  onEvent?: (event: RunnerEvent) => void;
  /** Any line of output (events excluded), stdout or stderr. */
  onOutput?: (line: string) => void;
  /** Whole-run time limit, ms; none by default. */
  timeoutMs?: number;
  /** SIGTERM → SIGKILL grace when the timeout fires, ms (default {@link DEFAULT_GRACE_MS}). */
  graceMs?: number;
}

export interface RunnerHandle {
  /** Process id (== process group id); undefined if it could not start. */
  readonly pid: number | undefined;
  /** Resolves once the runner and its whole group are gone. Never rejects. */
  readonly done: Promise<RunnerOutcome>;
  /** Terminate the group: SIGTERM, then SIGKILL after `graceMs`. Resolves with the outcome. */
  terminate(reason: TerminationReason, graceMs?: number): Promise<RunnerOutcome>;
  /** Whether the runner is still running. */
  readonly running: boolean;
}

export function spawnRunner(options: SpawnRunnerOptions): RunnerHandle {
  const startedAtMs = Date.now();
  const tail = new RingBuffer<string>(OUTPUT_TAIL_LINES);
  let terminationReason: TerminationReason | null = null;
  let forced = false;
  let running = true;
  let killTimer: NodeJS.Timeout | undefined;
  let graceInEffect = options.graceMs ?? DEFAULT_GRACE_MS;
  let timeoutTimer: NodeJS.Timeout | undefined;

  const output = (line: string) => {
    tail.push(line);
    options.onOutput?.(line);
  };

  const child = spawn(options.command, options.args, {
    cwd: options.cwd,
    env: options.env,
    detached: true,
    stdio: ["pipe", "pipe", "pipe"],
  });
  const pid = child.pid;
  // We never write to stdin; a write error (EPIPE) is irrelevant.
  child.stdin?.on("error", () => {});

  const stdoutDone = child.stdout
    ? splitLines(child.stdout, (line) => {
        const parsed = parseRunnerLine(line);
        if (parsed.kind === "event") options.onEvent?.(parsed.event);
        else if (parsed.kind === "bad-event") output(`${line} [ignored: ${parsed.reason}]`);
        else output(line);
      })
    : Promise.resolve();
  const stderrDone = child.stderr ? splitLines(child.stderr, output) : Promise.resolve();

  const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null; spawnError: string | null }>(
    (resolve) => {
      child.once("error", (err) => resolve({ code: null, signal: null, spawnError: err.message }));
      child.once("exit", (code, signal) => resolve({ code, signal, spawnError: null }));
    },
  );

  const sendKill = () => {
    if (pid === undefined) return;
    forced = true;
    killGroup(pid, "SIGKILL");
  };

  const done: Promise<RunnerOutcome> = (async () => {
    const exit = await exited;
    running = false;
    if (pid !== undefined && exit.spawnError === null) {
      // The leader is gone; anything left in its group is a leftover
      // (a grandchild holding our pipes open). It does not outlive the run.
      if (!(await waitGroupGone(pid, 0))) {
        // After terminate() the kill timer already runs; otherwise start a short TERM → KILL.
        if (!terminationReason) killGroup(pid, "SIGTERM");
        const wait = terminationReason ? graceInEffect + 2_000 : LEFTOVER_GRACE_MS;
        if (!(await waitGroupGone(pid, wait))) {
          sendKill();
          await waitGroupGone(pid, 2_000);
        }
      }
    }
    if (killTimer) clearTimeout(killTimer);
    if (timeoutTimer) clearTimeout(timeoutTimer);
    // Drain what is still buffered in the pipes; a process that left the group
    // (setsid) may hold them open, so this wait is bounded.
    await Promise.race([
      Promise.all([stdoutDone, stderrDone]),
      new Promise((r) => setTimeout(r, PIPE_DRAIN_MS).unref()),
    ]);
    child.stdout?.destroy();
    child.stderr?.destroy();
    child.stdin?.destroy();
    const finishedAtMs = Date.now();
    return {
      exitCode: exit.code,
      signal: exit.signal,
      terminationReason,
      timedOut: terminationReason === "timeout",
      isCanceled: terminationReason === "cancel" || terminationReason === "shutdown",
      isForcefullyTerminated: forced,
      spawnError: exit.spawnError,
      startedAtMs,
      finishedAtMs,
      durationMs: finishedAtMs - startedAtMs,
      outputTail: tail.toArray(),
    };
  })();

  const terminate = (reason: TerminationReason, graceMs = options.graceMs ?? DEFAULT_GRACE_MS) => {
    if (running && pid !== undefined) {
      terminationReason ??= reason;
      if (!killTimer) {
        graceInEffect = graceMs;
        killGroup(pid, "SIGTERM");
        killTimer = setTimeout(sendKill, graceMs);
        killTimer.unref();
        // The group may outlive the leader (a grandchild ignoring TERM): the
        // timer must still fire for it, and be cleared once all are gone.
        void waitGroupGone(pid, graceMs + 5_000).then((gone) => {
          if (gone && killTimer) clearTimeout(killTimer);
        });
      }
    }
    return done;
  };

  if (options.timeoutMs !== undefined) {
    timeoutTimer = setTimeout(() => void terminate("timeout"), options.timeoutMs);
    timeoutTimer.unref();
  }

  return {
    pid,
    done,
    terminate,
    get running() {
      return running;
    },
  };
}
