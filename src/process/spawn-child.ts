/**
 * Start a child in its own process group and supervise it to the end.
 *
 * - `detached: true` makes the child a group leader; every termination signals
 *   the whole group, so grandchildren die with it.
 * - terminate(reason): SIGTERM to the group, SIGKILL after the grace (at once
 *   with a grace of 0); the first reason wins; the kill timer is unref'd and
 *   cleared as soon as the group is gone. Timeout and the caller's AbortSignal
 *   go through the same path.
 * - After the leader ends, what is left of its group is dealt with per
 *   `leftovers`, and the group is registered to be killed if we exit first.
 */
import { spawn, type ChildProcess, type StdioOptions } from "node:child_process";
import { attachCapture, stdioFor, type Capture, type CaptureSink } from "./capture.js";
import { signalGroup, groupAlive, waitGroupGone } from "./kill-group.js";
import { killOnParentExit, forgetGroup } from "./exit-cleanup.js";
import { DEFAULT_GRACE_MS, KILL_REAP_MS, LEFTOVER_GRACE_MS, PIPE_DRAIN_MS } from "./grace.js";
import type { ProcessOutcome, TerminationReason } from "./outcome.js";

/**
 * What happens to members of the group once the leader has ended:
 * - `sweep` (default): as soon as the leader exits, SIGTERM them, SIGKILL after
 *   {@link LEFTOVER_GRACE_MS} (or after the grace in effect when we were
 *   terminating it anyway); then wait at most {@link PIPE_DRAIN_MS} for the pipes.
 * - `kill-after-close`: wait until the leader has exited and every pipe is
 *   closed, then SIGKILL the group at once (untrusted code gets no grace).
 * - `keep`: wait for exit and closed pipes, leave the group alone (its owner
 *   stops it, e.g. a scenario's stop()).
 */
export type LeftoverPolicy = "sweep" | "kill-after-close" | "keep";

export interface ChildOptions {
  file: string;
  args: readonly string[];
  cwd?: string;
  env: NodeJS.ProcessEnv;
  /**
   * `ignore` (default); `lifeline`: an open pipe we never write, so the child
   * sees EOF when we die, even by SIGKILL; `{ input }`: written, then closed.
   */
  stdin?: "ignore" | "lifeline" | { input: string };
  /** Default "ignore". */
  stdout?: Capture;
  /** Default "ignore". */
  stderr?: Capture;
  /** Wall-clock limit, ms; none by default. */
  timeoutMs?: number;
  /** SIGTERM → SIGKILL grace for timeout, cancel and output overflow, ms; default {@link DEFAULT_GRACE_MS}; 0 = SIGKILL at once. */
  graceMs?: number;
  /** Aborting it terminates the child with reason "cancel". */
  signal?: AbortSignal;
  /** Default "sweep". */
  leftovers?: LeftoverPolicy;
  /**
   * Default true: the child leads its own group, every signal goes to the group
   * and the group is killed if we exit first. false: a plain child in our own
   * group, signalled alone (no leftovers handling): for short trusted tools
   * whose start-up cost matters (setsid makes each spawn measurably slower).
   */
  ownGroup?: boolean;
}

export interface ChildHandle {
  /** Process id (== process group id); undefined if it could not start or was canceled before. */
  readonly pid: number | undefined;
  /** The Node child; undefined when the signal was already aborted (nothing was started). */
  readonly child: ChildProcess | undefined;
  /** Resolves once the child and its group are dealt with. Never rejects. */
  readonly done: Promise<ProcessOutcome>;
  /** Terminate the group (first reason wins); resolves with the outcome. */
  terminate(reason: TerminationReason, graceMs?: number): Promise<ProcessOutcome>;
  /** Whether the leader is still running. */
  readonly running: boolean;
}

interface Ending {
  code: number | null;
  signal: NodeJS.Signals | null;
  spawnError: string | null;
}

function stdioOf(o: ChildOptions): StdioOptions {
  const stdin = o.stdin === undefined || o.stdin === "ignore" ? "ignore" : "pipe";
  return [stdin, stdioFor(o.stdout ?? "ignore"), stdioFor(o.stderr ?? "ignore")];
}

/** Resolves at the leader's exit ("sweep") or at exit plus closed pipes (otherwise); a spawn failure ends it too. */
function endingOf(child: ChildProcess, policy: LeftoverPolicy): Promise<Ending> {
  return new Promise((resolve) => {
    child.on("error", (err) => resolve({ code: null, signal: null, spawnError: err.message }));
    child.once(policy === "sweep" ? "exit" : "close", (code: number | null, signal: NodeJS.Signals | null) =>
      resolve({ code, signal, spawnError: null }),
    );
  });
}

class ChildRun implements ChildHandle {
  readonly child: ChildProcess;
  readonly pid: number | undefined;
  readonly done: Promise<ProcessOutcome>;
  private readonly startedAtMs = Date.now();
  private readonly t0 = performance.now();
  private readonly policy: LeftoverPolicy;
  private readonly ownGroup: boolean;
  private readonly out: CaptureSink;
  private readonly err: CaptureSink;
  private reason: TerminationReason | null = null;
  private forced = false;
  private isRunning = true;
  private graceInEffect: number;
  private killTimer: NodeJS.Timeout | undefined;
  private timeoutTimer: NodeJS.Timeout | undefined;
  private readonly onAbort = (): void => void this.terminate("cancel");

  constructor(private readonly o: ChildOptions) {
    this.ownGroup = o.ownGroup ?? true;
    this.policy = this.ownGroup ? (o.leftovers ?? "sweep") : "keep";
    this.graceInEffect = o.graceMs ?? DEFAULT_GRACE_MS;
    this.child = spawn(o.file, o.args, { cwd: o.cwd, env: o.env, detached: this.ownGroup, stdio: stdioOf(o) });
    this.pid = this.child.pid;
    if (this.pid !== undefined && this.ownGroup) killOnParentExit(this.pid);
    const ending = endingOf(this.child, this.policy);
    this.writeStdin();
    const overflow = (): void => void this.terminate("output");
    this.out = attachCapture(this.child.stdout, o.stdout ?? "ignore", overflow);
    this.err = attachCapture(this.child.stderr, o.stderr ?? "ignore", overflow);
    if (o.timeoutMs !== undefined) {
      this.timeoutTimer = setTimeout(() => void this.terminate("timeout"), o.timeoutMs);
      this.timeoutTimer.unref();
    }
    o.signal?.addEventListener("abort", this.onAbort, { once: true });
    this.done = this.settle(ending);
  }

  get running(): boolean {
    return this.isRunning;
  }

  terminate(reason: TerminationReason, graceMs = this.o.graceMs ?? DEFAULT_GRACE_MS): Promise<ProcessOutcome> {
    if (!this.isRunning || this.pid === undefined) return this.done;
    this.reason ??= reason;
    if (this.killTimer === undefined && !this.forced) {
      this.graceInEffect = graceMs;
      if (graceMs <= 0) {
        this.forceKill();
      } else {
        this.signal("SIGTERM");
        this.killTimer = setTimeout(() => this.forceKill(), graceMs);
        this.killTimer.unref();
      }
    }
    return this.done;
  }

  private writeStdin(): void {
    const stdin = this.child.stdin;
    if (!stdin) return;
    // The child may close stdin early; a write error (EPIPE) is its business.
    stdin.on("error", () => {});
    if (typeof this.o.stdin === "object") stdin.end(this.o.stdin.input);
  }

  /** Signal the group (or, without its own group, the child alone). */
  private signal(sig: NodeJS.Signals): void {
    if (this.pid === undefined) return;
    if (this.ownGroup) signalGroup(this.pid, sig);
    else this.child.kill(sig);
  }

  private forceKill(): void {
    this.forced = true;
    this.signal("SIGKILL");
  }

  private async settle(ending: Promise<Ending>): Promise<ProcessOutcome> {
    const end = await ending;
    this.isRunning = false;
    const started = this.pid !== undefined && end.spawnError === null;
    if (started && this.policy === "sweep") await this.sweep(this.pid);
    if (started && this.policy === "kill-after-close") signalGroup(this.pid, "SIGKILL");
    clearTimeout(this.killTimer);
    clearTimeout(this.timeoutTimer);
    this.o.signal?.removeEventListener("abort", this.onAbort);
    if (this.policy === "sweep") await this.drainPipes();
    if (this.pid !== undefined && this.ownGroup) forgetGroup(this.pid);
    return this.outcome(end);
  }

  /** The leader has exited; anything left in its group is a leftover and does not outlive the run. */
  private async sweep(pid: number): Promise<void> {
    if (!groupAlive(pid)) return;
    // After terminate() the kill timer already runs; otherwise start a short TERM → KILL.
    if (!this.reason) signalGroup(pid, "SIGTERM");
    const wait = this.reason ? this.graceInEffect + KILL_REAP_MS : LEFTOVER_GRACE_MS;
    if (!(await waitGroupGone(pid, wait))) {
      this.forceKill();
      await waitGroupGone(pid, KILL_REAP_MS);
    }
  }

  /** Read what is still buffered in the pipes; a process that left the group (setsid) may hold them, so bounded. */
  private async drainPipes(): Promise<void> {
    let timer: NodeJS.Timeout | undefined;
    await Promise.race([
      Promise.all([this.out.done, this.err.done]),
      new Promise((r) => (timer = setTimeout(r, PIPE_DRAIN_MS).unref())),
    ]);
    clearTimeout(timer);
    for (const s of this.child.stdio) s?.destroy();
  }

  private outcome(end: Ending): ProcessOutcome {
    const reason = this.reason;
    return {
      exitCode: end.code,
      signal: end.signal,
      terminationReason: reason,
      timedOut: reason === "timeout",
      isCanceled: reason === "cancel" || reason === "shutdown",
      isForcefullyTerminated: this.forced,
      outputLimitExceeded: reason === "output",
      spawnError: end.spawnError,
      startedAtMs: this.startedAtMs,
      finishedAtMs: Date.now(),
      durationMs: Math.round(performance.now() - this.t0),
      stdout: this.out.text(),
      stderr: this.err.text(),
    };
  }
}

/** The outcome of a child never started because the caller had already canceled. */
export function canceledOutcome(): ProcessOutcome {
  const now = Date.now();
  return {
    exitCode: null,
    signal: null,
    terminationReason: "cancel",
    timedOut: false,
    isCanceled: true,
    isForcefullyTerminated: false,
    outputLimitExceeded: false,
    spawnError: null,
    startedAtMs: now,
    finishedAtMs: now,
    durationMs: 0,
    stdout: "",
    stderr: "",
  };
}

/** Start and supervise a child; never throws for a start failure (it ends in `spawnError`). */
export function startChild(options: ChildOptions): ChildHandle {
  if (options.signal?.aborted) {
    const done = Promise.resolve(canceledOutcome());
    return { pid: undefined, child: undefined, done, terminate: () => done, running: false };
  }
  return new ChildRun(options);
}

/** Run a child to its end: {@link startChild}'s outcome. Never rejects. */
export function runChild(options: ChildOptions): Promise<ProcessOutcome> {
  return startChild(options).done;
}
