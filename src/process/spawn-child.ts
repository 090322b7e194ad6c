/**
 * Start a child in its own process group and supervise it to the end.
 *
 * - `detached: true` makes the child a group leader; every termination signals
 *   the whole group, so grandchildren die with it.
 * - Termination (timeout, the caller's AbortSignal, output over its cap,
 *   terminate()) goes through one {@link Terminator}: first reason wins,
 *   SIGTERM → grace → SIGKILL, timers unref'd.
 * - After the leader ends, what is left of its group is dealt with per
 *   `leftovers`, and the group is registered to be killed if we exit first.
 *
 * The same call serves a run to completion (runChild, or run-command.ts for a
 * short tool) and a long-lived child spoken to over pipes (`stdin: "pipe"`,
 * stdout as lines: a fork server, a keepalive client).
 */
import { spawn, type ChildProcess } from "node:child_process";
import type { Writable } from "node:stream";
import {
  attachCapture,
  checkCapture,
  stdioFor,
  type Capture,
  type CaptureSink,
  type StderrCapture,
} from "./capture.js";
import { attachStdin, stdinStdio, type StdinMode } from "./stdin.js";
import { LIFELINE_FD, LIFELINE_FD_ENV } from "./lifeline.js";
import { Terminator, type StopWork } from "./terminate.js";
import { signalGroup, groupAlive, waitGroupGone } from "./kill-group.js";
import { killOnParentExit, forgetGroup } from "./exit-cleanup.js";
import { DEFAULT_GRACE_MS, KILL_REAP_MS, LEFTOVER_GRACE_MS, PIPE_DRAIN_MS } from "./grace.js";
import { checkFile, checkMs, ProcessOptionError } from "./options.js";
import type { ProcessOutcome, TerminationReason } from "./outcome.js";

/**
 * What happens to members of the group once the leader has ended:
 * - `sweep` (default): as soon as the leader exits, SIGTERM them, SIGKILL after
 *   {@link LEFTOVER_GRACE_MS} (or after the grace in effect when we were
 *   terminating it anyway); then wait at most {@link PIPE_DRAIN_MS} for the pipes.
 * - `kill-after-close`: wait until the leader has exited and every pipe is
 *   closed, then SIGKILL the group at once (untrusted code gets no grace). A
 *   process that left the group (setsid) may hold the pipes for ever: once the
 *   leader has exited and its group is empty, the pipes get at most
 *   {@link PIPE_DRAIN_MS} more.
 * - `keep`: wait for exit and closed pipes, leave the group alone (its owner
 *   stops it, e.g. a scenario's stop()).
 */
export type LeftoverPolicy = "sweep" | "kill-after-close" | "keep";

export interface ChildOptions {
  file: string;
  args: readonly string[];
  cwd?: string;
  env: NodeJS.ProcessEnv;
  /** Default "ignore". See {@link StdinMode}. */
  stdin?: StdinMode;
  /**
   * A lifeline of its own (lifeline.ts): an extra pipe at fd {@link LIFELINE_FD} that we hold open and never
   * write, named to the child in env {@link LIFELINE_FD_ENV}; it sees EOF there when we die. Default false.
   */
  lifeline?: boolean;
  /** Default "ignore". */
  stdout?: Capture;
  /** Default "ignore"; "stdout" merges it into stdout's capture in arrival order. */
  stderr?: StderrCapture;
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
  /**
   * For a child that is only a client of the work (a `docker exec`/`docker run`
   * client): awaited on termination before the child is signalled, e.g.
   * `docker kill`. Its failure does not stop the signals.
   */
  stopWork?: StopWork;
}

/** How the leader itself ended (before leftovers and pipes are dealt with). */
export interface LeaderExit {
  exitCode: number | null;
  signal: NodeJS.Signals | null;
}

export interface ChildHandle {
  /** Process id (== process group id); undefined if it could not start or was canceled before. */
  readonly pid: number | undefined;
  /** The Node child; undefined when the signal was already aborted (nothing was started). */
  readonly child: ChildProcess | undefined;
  /** The pipe to write with `stdin: "pipe"` (or "lifeline", to close it early); null otherwise. */
  readonly stdin: Writable | null;
  /** Resolves when the leader exits (or fails to start), before leftovers and pipes; never rejects. */
  readonly exited: Promise<LeaderExit>;
  /** Resolves once the child and its group are dealt with. Never rejects. */
  readonly done: Promise<ProcessOutcome>;
  /** Terminate the group (first reason wins); resolves with the outcome. */
  terminate(reason: TerminationReason, graceMs?: number): Promise<ProcessOutcome>;
  /** Whether the leader is still running. */
  readonly running: boolean;
}

interface Ending extends LeaderExit {
  spawnError: string | null;
}

/** Resolves at the leader's exit ("sweep") or at exit plus closed pipes (otherwise); a spawn failure ends it too. */
function endingOf(child: ChildProcess, policy: LeftoverPolicy): Promise<Ending> {
  return new Promise((resolve) => {
    child.on("error", (err) => resolve({ exitCode: null, signal: null, spawnError: err.message }));
    child.once(policy === "sweep" ? "exit" : "close", (exitCode: number | null, signal: NodeJS.Signals | null) =>
      resolve({ exitCode, signal, spawnError: null }),
    );
  });
}

function exitOf(child: ChildProcess): Promise<LeaderExit> {
  return new Promise((resolve) => {
    child.once("error", () => resolve({ exitCode: null, signal: null }));
    child.once("exit", (exitCode: number | null, signal: NodeJS.Signals | null) => resolve({ exitCode, signal }));
  });
}

class ChildRun implements ChildHandle {
  readonly child: ChildProcess;
  readonly pid: number | undefined;
  readonly stdin: Writable | null;
  readonly exited: Promise<LeaderExit>;
  readonly done: Promise<ProcessOutcome>;
  private readonly startedAtMs = Date.now();
  private readonly t0 = performance.now();
  private readonly policy: LeftoverPolicy;
  private readonly ownGroup: boolean;
  private readonly out: CaptureSink;
  private readonly err: CaptureSink;
  private readonly term: Terminator;
  private leaderRunning = true;
  /** The ending (exit for "sweep", exit and closed pipes otherwise) was seen: terminate() no longer signals. */
  private ended = false;
  private timeoutTimer: NodeJS.Timeout | undefined;
  private readonly onAbort = (): void => void this.terminate("cancel");

  constructor(private readonly o: ChildOptions) {
    this.ownGroup = o.ownGroup ?? true;
    this.policy = this.ownGroup ? (o.leftovers ?? "sweep") : "keep";
    const stdin = o.stdin ?? "ignore";
    const stderr = o.stderr ?? "ignore";
    this.child = spawn(o.file, o.args, {
      cwd: o.cwd,
      env: o.lifeline ? { ...o.env, [LIFELINE_FD_ENV]: String(LIFELINE_FD) } : o.env,
      detached: this.ownGroup,
      stdio: [
        stdinStdio(stdin),
        stdioFor(o.stdout ?? "ignore"),
        stdioFor(stderr),
        ...(o.lifeline ? ["pipe" as const] : []),
      ],
    });
    // Our end of the lifeline: never written; a child writing to it is ignored, its errors too.
    this.child.stdio[LIFELINE_FD]?.on("error", () => undefined);
    this.pid = this.child.pid;
    this.term = new Terminator((sig) => this.signal(sig), o.graceMs ?? DEFAULT_GRACE_MS, o.stopWork);
    if (this.pid !== undefined && this.ownGroup) killOnParentExit(this.pid);
    this.exited = exitOf(this.child).then((e) => {
      this.leaderRunning = false;
      return e;
    });
    const closed = endingOf(this.child, this.policy);
    const ending =
      this.policy === "kill-after-close" && this.pid !== undefined
        ? Promise.race([closed, this.escapedPipes(this.pid)])
        : closed;
    this.stdin = attachStdin(this.child.stdin, stdin);
    const overflow = (): void => void this.terminate("output");
    const merged = stderr === "stdout";
    this.out = attachCapture(
      merged ? [this.child.stdout, this.child.stderr] : [this.child.stdout],
      o.stdout ?? "ignore",
      overflow,
    );
    this.err = merged ? attachCapture([], "ignore", overflow) : attachCapture([this.child.stderr], stderr, overflow);
    if (o.timeoutMs !== undefined) {
      this.timeoutTimer = setTimeout(() => void this.terminate("timeout"), o.timeoutMs);
      this.timeoutTimer.unref();
    }
    o.signal?.addEventListener("abort", this.onAbort, { once: true });
    this.done = this.settle(ending);
  }

  get running(): boolean {
    return this.leaderRunning;
  }

  terminate(reason: TerminationReason, graceMs?: number): Promise<ProcessOutcome> {
    if (this.ended || this.pid === undefined) return this.done;
    this.term.terminate(reason, graceMs);
    return this.done;
  }

  /** Signal the group (or, without its own group, the child alone). */
  private signal(sig: NodeJS.Signals): void {
    if (this.pid === undefined) return;
    if (this.ownGroup) signalGroup(this.pid, sig);
    else this.child.kill(sig);
  }

  private async settle(ending: Promise<Ending>): Promise<ProcessOutcome> {
    const end = await ending;
    this.ended = true;
    this.leaderRunning = false;
    const started = this.pid !== undefined && end.spawnError === null;
    if (started && this.policy === "sweep") await this.sweep(this.pid);
    if (started && this.policy === "kill-after-close") {
      signalGroup(this.pid, "SIGKILL");
      // Pipes a process outside the group still holds are read no further.
      for (const s of this.child.stdio) s?.destroy();
    }
    this.term.clear();
    clearTimeout(this.timeoutTimer);
    this.o.signal?.removeEventListener("abort", this.onAbort);
    if (this.policy === "sweep") await this.drainPipes();
    if (this.pid !== undefined && this.ownGroup) forgetGroup(this.pid);
    return this.outcome(end);
  }

  /**
   * Resolves {@link PIPE_DRAIN_MS} after the leader has exited and its group is empty: whoever still holds
   * the pipes then left the group (setsid), and must not make the ending wait for ever.
   */
  private async escapedPipes(pid: number): Promise<Ending> {
    const exit = await this.exited;
    await waitGroupGone(pid, Number.POSITIVE_INFINITY);
    await new Promise((resolve) => setTimeout(resolve, PIPE_DRAIN_MS).unref());
    return { ...exit, spawnError: null };
  }

  /** The leader has exited; anything left in its group is a leftover and does not outlive the run. */
  private async sweep(pid: number): Promise<void> {
    if (!groupAlive(pid)) return;
    // After terminate() the kill timer already runs; otherwise start a short TERM → KILL.
    const terminating = this.term.reason !== null;
    if (!terminating) signalGroup(pid, "SIGTERM");
    const wait = terminating ? this.term.graceInEffect + KILL_REAP_MS : LEFTOVER_GRACE_MS;
    if (!(await waitGroupGone(pid, wait))) {
      this.term.forceKill();
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
    const reason = this.term.reason;
    return {
      exitCode: end.exitCode,
      signal: end.signal,
      terminationReason: reason,
      timedOut: reason === "timeout",
      isCanceled: reason === "cancel" || reason === "shutdown",
      isForcefullyTerminated: this.term.forced,
      outputLimitExceeded: reason === "output",
      spawnError: end.spawnError,
      startedAtMs: this.startedAtMs,
      finishedAtMs: Date.now(),
      durationMs: Math.round(performance.now() - this.t0),
      stdout: this.out.text(),
      stderr: this.err.text(),
      stdoutBytes: this.out.bytes(),
      stderrBytes: this.err.bytes(),
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
    stdoutBytes: 0,
    stderrBytes: 0,
  };
}

/** Throws ProcessOptionError naming the first option that cannot work. */
function checkOptions(o: ChildOptions): void {
  checkFile(o.file);
  if (!Array.isArray(o.args) || !o.args.every((a) => typeof a === "string"))
    throw new ProcessOptionError(`args must be an array of strings`);
  checkMs("timeoutMs", o.timeoutMs);
  checkMs("graceMs", o.graceMs);
  checkCapture("stdout", o.stdout ?? "ignore");
  checkCapture("stderr", o.stderr ?? "ignore");
  if (o.stderr === "stdout" && (o.stdout ?? "ignore") === "ignore")
    throw new ProcessOptionError(`stderr "stdout" needs a stdout capture other than "ignore"`);
  if (o.stderr === "stdout" && o.stdout === "pipe")
    throw new ProcessOptionError(`stderr "stdout" cannot merge into a stdout the caller reads itself ("pipe")`);
}

/**
 * Start and supervise a child. Never throws for a start failure (it ends in
 * `spawnError`); throws {@link ProcessOptionError} for an option that cannot work.
 */
export function startChild(options: ChildOptions): ChildHandle {
  checkOptions(options);
  if (options.signal?.aborted) {
    const done = Promise.resolve(canceledOutcome());
    const exited = Promise.resolve({ exitCode: null, signal: null });
    return { pid: undefined, child: undefined, stdin: null, exited, done, terminate: () => done, running: false };
  }
  return new ChildRun(options);
}

/** Run a child to its end: {@link startChild}'s outcome. Never rejects for the child's failure. */
export function runChild(options: ChildOptions): Promise<ProcessOutcome> {
  return startChild(options).done;
}
