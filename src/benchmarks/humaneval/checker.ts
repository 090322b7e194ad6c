/**
 * Node side of the trusted HumanEval checker (checker-program.ts): starts the
 * host's python3 running the checker server through the process layer (own
 * group, killed if we exit), sends record and judge requests, matches reply
 * lines to requests. The checker only ever execs the operator's dataset; the
 * candidate's code never runs on the host.
 *
 * Our failures stay ours: a request that times out, a checker that dies or
 * cannot start rejects with a CheckerError (code E_HUMANEVAL_CHECKER), which
 * the benchmark records as `infrastructure_checker`, never as a score. A dead
 * server is started again on the next request.
 *
 * The interpreter is PATH's python3 resolved to its real binary (the sandbox's
 * probe, shared once per process and remembered across runs: host-python.ts;
 * a pyenv shim is a bash script that costs ~85 ms a start); when that probe fails we fall back to PATH's python3 as
 * found, and without one the first request rejects with a clear CheckerError.
 *
 * Requests go to the server one at a time (it handles them one after another
 * anyway), and each one's watchdog starts when it is sent: a request queued
 * behind a slow one must not run out of time waiting, or a candidate whose
 * answers make its own judge slow (but within the bound) would turn its
 * neighbours' rows into our errors.
 */
import { createHash } from "node:crypto";
import { createInterface } from "node:readline";
import { startChild, type ChildHandle } from "../../process/index.js";
import { findOnPath } from "../../sandbox/local/host-python.js";
import { probeHostPython } from "../../sandbox/local/probe.js";
import { BenchError } from "../../util/errors.js";
import type { CompiledAnswerCodec } from "./answer-codec.js";
import { CHECKER_PY } from "./checker-program.js";
import type { HumanEvalProblem } from "./problem.js";

/** Our bound on one record or judge request, ms (the reference checks take milliseconds; gold's slowest < 1 s). */
export const CHECKER_REQUEST_TIMEOUT_MS = 20_000;
/** Extra wait past a request's own timeout before we declare the whole server hung, ms. */
const SERVER_GRACE_MS = 5_000;
/** Grace between SIGTERM and SIGKILL when we close the server, ms (it only has forks of trusted code to reap). */
const CLOSE_GRACE_MS = 1_000;
/** Bytes of the server's stderr kept for error messages. */
const STDERR_TAIL_BYTES = 8192;

/** sha256 of the checker program (with its codec): recorded calls are only reused from the same program. */
export const CHECKER_PROGRAM_SHA256 = createHash("sha256").update(CHECKER_PY).digest("hex");

/**
 * The interpreter the checker runs: PATH's python3 resolved to its real path (shared with the sandbox's
 * probe), else PATH's python3 as found; rejects with a CheckerError when there is none.
 */
export async function resolveCheckerPython(): Promise<string> {
  try {
    return (await probeHostPython()).python;
  } catch {
    const found = findOnPath("python3");
    if (found) return found;
    throw new CheckerError("no python3 on PATH: the HumanEval checker runs the dataset's tests on the host");
  }
}

/** One call of the check to the entry point: encoded args and kwargs (plain-data.ts). */
export type CheckCall = { a: unknown; k: unknown };

/** What judging one completion's answers concluded. */
export type JudgeResult =
  | { verdict: "pass" }
  | { verdict: "wrong_answer"; message: string; call: number }
  | { verdict: "exception"; exception: string; message: string; call: number }
  | { verdict: "check_error"; exception: string; message: string; call: number }
  | { verdict: "missing"; call: number; answered: number }
  | { verdict: "interface"; message: string }
  | { verdict: "malformed"; message: string }
  | { verdict: "diverged"; at: number; calls: CheckCall[] };

/** The checker failed (ours): could not start, died, timed out, or reported its own fault. */
export class CheckerError extends BenchError {
  /**
   * @param timedOut the request ran past its bound (the checker's own alarm, or our watchdog): on a judge, the
   *   check was slow on the answers it was given, which the benchmark weighs differently from a crash.
   */
  constructor(
    message: string,
    readonly timedOut = false,
  ) {
    super("E_HUMANEVAL_CHECKER", message);
  }
}

interface Pending {
  resolve: (value: unknown) => void;
  reject: (err: CheckerError) => void;
  watchdog: NodeJS.Timeout;
}

type ProblemFields = Pick<HumanEvalProblem, "prompt" | "test" | "entry_point" | "canonical_solution">;

/** A checker server; `record` and `judge` may be called concurrently (they are sent one at a time). */
export class HumanEvalChecker {
  private handle: ChildHandle | null = null;
  private ready: Promise<void> | null = null;
  private readonly pending = new Map<number, Pending>();
  private nextId = 1;
  /** Requests waiting for the server to start. */
  private waiting = 0;
  private stderrTail = "";
  /** The answer codec compiled by this server's interpreter (from its ready line), or null. */
  private codec: CompiledAnswerCodec | null = null;
  /** Bumped by close(): a start still resolving its interpreter then spawns nothing. */
  private generation = 0;
  /** Settles when the last request sent or queued has settled. */
  private queue: Promise<unknown> = Promise.resolve();

  private python: string;

  /** @param python interpreter to run (default: PATH's python3 resolved to its real path, see resolveCheckerPython). */
  constructor(
    private readonly pythonOption?: string,
    private readonly timeoutMs = CHECKER_REQUEST_TIMEOUT_MS,
  ) {
    this.python = pythonOption ?? "python3";
  }

  /** The interpreter this checker runs (resolved on first start when not given). */
  async interpreter(): Promise<string> {
    if (this.pythonOption === undefined) this.python = await resolveCheckerPython();
    return this.python;
  }

  /** The ordered calls check() makes to the canonical solution (or, without one, to a placeholder). */
  async record(problem: ProblemFields): Promise<CheckCall[]> {
    const result = (await this.request({ op: "record", problem: fields(problem) })) as { calls: CheckCall[] };
    return result.calls;
  }

  /** Replay check() on a candidate's answers (its program's stdout) to the given calls. */
  judge(problem: ProblemFields, calls: readonly CheckCall[], answers: string): Promise<JudgeResult> {
    return this.request({ op: "judge", problem: fields(problem), calls, answers }) as Promise<JudgeResult>;
  }

  /** The answer codec compiled by the checker's interpreter (answer-codec.ts); null when it sent none or cannot start. */
  async answerCodec(): Promise<CompiledAnswerCodec | null> {
    this.waiting++;
    this.holdLoop();
    try {
      await this.started();
    } catch {
      return null;
    } finally {
      this.waiting--;
      this.holdLoop();
    }
    return this.codec;
  }

  /** Start the server now, in the background (its python start overlaps the run's own start-up). Never throws. */
  warmUp(): void {
    if (this.ready) return;
    this.ready = this.start();
    this.ready.catch(() => {
      /* surfaced by the first request */
    });
  }

  /** Stop the server (pending requests reject). Idempotent. */
  async close(): Promise<void> {
    this.generation++;
    const h = this.handle;
    this.handle = null;
    this.ready = null;
    if (!h) return;
    // Hold the event loop until it is gone: a caller awaiting close() must see it resolve.
    for (const r of [h.child, h.child?.stdout, h.child?.stderr] as unknown as Array<Refable | undefined>) r?.ref?.();
    h.child?.stdin?.end();
    await h.terminate("shutdown", CLOSE_GRACE_MS);
  }

  private async request(body: Record<string, unknown>): Promise<unknown> {
    this.waiting++;
    this.holdLoop();
    const before = this.queue;
    const sent = (async (): Promise<unknown> => {
      let handle: ChildHandle;
      try {
        await before;
        handle = await this.started();
      } finally {
        this.waiting--;
      }
      return this.send(handle, body);
    })();
    this.queue = sent.catch(() => undefined);
    return sent;
  }

  private send(handle: ChildHandle, body: Record<string, unknown>): Promise<unknown> {
    const id = this.nextId++;
    const line = JSON.stringify({ id, timeoutMs: this.timeoutMs, ...body }) + "\n";
    return new Promise((resolve, reject) => {
      const watchdog = setTimeout(() => {
        this.pending.delete(id);
        reject(new CheckerError(`checker did not answer within ${this.timeoutMs + SERVER_GRACE_MS} ms`, true));
        void this.restart(handle);
      }, this.timeoutMs + SERVER_GRACE_MS);
      watchdog.unref();
      this.pending.set(id, { resolve, reject, watchdog });
      this.holdLoop();
      handle.child?.stdin?.write(line);
    });
  }

  /**
   * Keep Node's event loop alive for the server only while a request waits on it: an idle checker
   * (warmed up for a run that then refused to start, say) must not keep the process from exiting.
   * The process layer kills it when we exit.
   */
  private holdLoop(): void {
    const child = this.handle?.child;
    if (!child) return;
    const hold = this.pending.size + this.waiting > 0;
    for (const h of [child, child.stdin, child.stdout, child.stderr] as unknown as Array<Refable | null>) {
      if (hold) h?.ref?.();
      else h?.unref?.();
    }
  }

  private async restart(handle: ChildHandle): Promise<void> {
    if (this.handle !== handle) return;
    this.handle = null;
    this.ready = null;
    await handle.terminate("timeout", 0);
  }

  private async started(): Promise<ChildHandle> {
    if (!this.ready) this.ready = this.start();
    await this.ready;
    if (!this.handle) throw new CheckerError(`checker stopped: ${this.stderrTail.slice(-500)}`);
    return this.handle;
  }

  private async start(): Promise<void> {
    const generation = this.generation;
    const python = await this.interpreter();
    // Closed while the interpreter was resolved: start nothing (a later request starts anew).
    if (generation !== this.generation) throw new CheckerError("checker closed while starting");
    await this.spawn(python);
  }

  private spawn(python: string): Promise<void> {
    this.stderrTail = "";
    // -I -S: no site module, no user site directory, no PYTHON* variables: the interpreter and its standard library.
    const handle = startChild({
      file: python,
      args: ["-I", "-S", "-c", CHECKER_PY],
      env: { PATH: process.env["PATH"] ?? "/usr/bin:/bin", LC_ALL: "C.UTF-8" },
      stdin: "lifeline",
      stdout: "pipe",
      stderr: "pipe",
      graceMs: CLOSE_GRACE_MS,
    });
    this.handle = handle;
    this.holdLoop();
    const child = handle.child;
    if (!child?.stdout || !child.stderr || !child.stdin) {
      return Promise.reject(new CheckerError(`could not start the checker (${this.python})`));
    }
    child.stdin.on("error", () => {
      /* the exit handler settles what is pending */
    });
    child.stderr.setEncoding("utf8").on("data", (s: string) => {
      this.stderrTail = (this.stderrTail + s).slice(-STDERR_TAIL_BYTES);
    });
    const ready = new Promise<void>((resolve, reject) => {
      createInterface({ input: child.stdout! }).on("line", (text) => {
        const msg = parseReply(text);
        if (msg === null) return;
        if (msg.ready === true) {
          this.codec = compiledCodec(msg.codec);
          return resolve();
        }
        this.settle(msg);
      });
      void handle.done.then((o) => {
        const why = new CheckerError(
          `checker (${this.python}) ended: ${o.spawnError ?? `exit ${o.exitCode}, signal ${o.signal}`}` +
            (this.stderrTail ? `: ${this.stderrTail.slice(-500)}` : ""),
        );
        if (this.handle === handle) {
          this.handle = null;
          this.ready = null;
        }
        reject(why);
        for (const [id, p] of this.pending) {
          clearTimeout(p.watchdog);
          this.pending.delete(id);
          p.reject(why);
        }
      });
    });
    return ready;
  }

  private settle(msg: Reply): void {
    const p = typeof msg.id === "number" ? this.pending.get(msg.id) : undefined;
    if (!p || msg.id === undefined) return;
    this.pending.delete(msg.id);
    clearTimeout(p.watchdog);
    this.holdLoop();
    if (typeof msg.error === "string") p.reject(new CheckerError(msg.error, msg.timedOut === true));
    else p.resolve(msg.result);
  }
}

/** A handle or stream that can stop holding the event loop (ChildProcess, net.Socket). */
interface Refable {
  ref?: () => void;
  unref?: () => void;
}

interface Reply {
  id?: number;
  ready?: boolean;
  codec?: unknown;
  result?: unknown;
  error?: string;
  /** With `error`: the request ran past its timeout. */
  timedOut?: boolean;
}

function compiledCodec(v: unknown): CompiledAnswerCodec | null {
  if (typeof v !== "object" || v === null) return null;
  const { magic, code } = v as Record<string, unknown>;
  const hex = (x: unknown): x is string => typeof x === "string" && x.length > 0 && /^[0-9a-f]+$/.test(x);
  return hex(magic) && hex(code) ? { magic, code } : null;
}

function parseReply(text: string): Reply | null {
  try {
    const v = JSON.parse(text) as unknown;
    return typeof v === "object" && v !== null ? v : null;
  } catch {
    return null;
  }
}

function fields(p: ProblemFields): ProblemFields {
  return { prompt: p.prompt, test: p.test, entry_point: p.entry_point, canonical_solution: p.canonical_solution };
}
