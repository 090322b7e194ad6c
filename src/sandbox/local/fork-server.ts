/**
 * Node side of the fork server: starts it (inside one sandbox), sends job
 * lines, matches result lines to jobs. Jobs cannot kill the server (other
 * uid, or a seccomp filter on kill: see fork-server-program.ts), but if it
 * dies anyway, nothing that was running on it is scored from that death:
 * each such job runs again, once, on a fresh server (a second death settles
 * it with `infraError`, never as a program failure). A job's result is
 * judged only from its own result line.
 */
import { createInterface } from "node:readline";
import { startChild, type ChildHandle, type ProcessOutcome } from "../../process/index.js";
import type { Logger } from "../../util/logger.js";
import type { ExecOutcome, SandboxLimits } from "../types.js";
import { emptyOutcome } from "../types.js";
import type { LaunchCommand } from "./launch-command.js";

/** Extra time the server gets past a job's own timeout before we declare it hung (ms). */
export const SERVER_GRACE_MS = 5_000;
/** Runs of one job when servers die under it: the first, plus one re-run on a fresh server. */
export const MAX_ATTEMPTS = 2;
/** Bytes of the server's own stderr kept for the message of its death (the message quotes the last 500). */
const SERVER_STDERR_TAIL_BYTES = 2_000;

export interface ForkJob {
  code: string;
  timeoutMs: number;
  env: Record<string, string>;
  stdin?: string;
  files?: Record<string, string>;
  limits: SandboxLimits;
  /** Size of each job's private tmpfs mounts ("private" mode), bytes. */
  tmpfsBytes: number;
  /** Files (inodes) each of those mounts may hold. */
  tmpfsInodes: number;
}

/** How one attempt ended: a result line, or the server went away under it. */
type Attempt = { kind: "result"; line: ResultLine } | { kind: "server-died"; why: string };

interface Pending {
  resolve: (a: Attempt) => void;
  watchdog: NodeJS.Timeout;
}

interface ResultLine {
  id: number;
  exitCode?: number | null;
  signal?: string | null;
  timedOut?: boolean;
  canceled?: boolean;
  outputLimitExceeded?: boolean;
  durationMs?: number;
  stdout?: string;
  stderr?: string;
  infraError?: string;
}

export class ForkServer {
  private server: ChildHandle | null = null;
  private ready: Promise<void> | null = null;
  private readonly pending = new Map<number, Pending>();
  private nextId = 1;
  /** How many times a server was started (1 = never restarted). */
  starts = 0;

  constructor(
    private readonly command: () => LaunchCommand,
    private readonly env: Record<string, string>,
    private readonly logger: Logger,
  ) {}

  private start(): Promise<void> {
    const cmd = this.command();
    this.starts++;
    // Its own group (a job's processes are in it too), killed with us; once the server has exited and its
    // pipes are closed, whatever is left of the group is SIGKILLed at once.
    const server = startChild({
      file: cmd.file,
      args: cmd.args,
      cwd: cmd.spawnCwd,
      env: this.env,
      stdin: "pipe",
      // Read here, not as capped lines: a result line carries a job's capped output, JSON-escaped (several
      // MiB with large caps); the server bounds its own lines.
      stdout: "pipe",
      stderr: { tail: SERVER_STDERR_TAIL_BYTES },
      leftovers: "kill-after-close",
    });
    this.server = server;
    this.ready = new Promise((resolve, reject) => {
      const stdout = server.child?.stdout;
      if (stdout)
        createInterface({ input: stdout }).on("line", (line) => {
          let msg: ResultLine & { ready?: boolean };
          try {
            msg = JSON.parse(line) as ResultLine & { ready?: boolean };
          } catch {
            return;
          }
          if (msg.ready) return resolve();
          this.settle(msg.id, { kind: "result", line: msg });
        });
      void server.done.then((o) => {
        if (this.server === server) {
          this.server = null;
          this.ready = null;
        }
        const why = o.spawnError ?? this.deathMessage(o);
        reject(new Error(why));
        for (const id of [...this.pending.keys()]) this.settle(id, { kind: "server-died", why });
        if (this.pending.size === 0 && o.exitCode !== 0 && o.signal !== "SIGKILL")
          this.logger.warn({ why }, "fork server died");
      });
    });
    this.ready.catch(() => {
      /* surfaced per job */
    });
    return this.ready;
  }

  private deathMessage(o: ProcessOutcome): string {
    const stderr = o.stderr.slice(-500);
    return `fork server exited (code ${o.exitCode}, signal ${o.signal})${stderr ? `: ${stderr}` : ""}`;
  }

  private toOutcome(m: ResultLine): ExecOutcome {
    return emptyOutcome({
      exitCode: m.exitCode ?? null,
      signal: m.signal ?? null,
      timedOut: m.timedOut ?? false,
      isCanceled: m.canceled ?? false,
      outputLimitExceeded: m.outputLimitExceeded ?? false,
      durationMs: m.durationMs ?? 0,
      stdoutTail: m.stdout ?? "",
      stderrTail: m.stderr ?? "",
      ...(m.infraError !== undefined ? { infraError: m.infraError } : {}),
    });
  }

  private settle(id: number, attempt: Attempt): void {
    const p = this.pending.get(id);
    if (!p) return;
    this.pending.delete(id);
    clearTimeout(p.watchdog);
    p.resolve(attempt);
  }

  /** Start the server now if it is not running (its failure surfaces on the next job). */
  warm(): void {
    if (!this.ready)
      this.start().catch(() => {
        /* surfaced per job */
      });
  }

  /** Run one job; never rejects. A server death under the job re-runs it once on a fresh server. */
  async run(job: ForkJob, signal?: AbortSignal): Promise<ExecOutcome> {
    let why = "";
    for (let attempt = 1; attempt <= MAX_ATTEMPTS; attempt++) {
      if (signal?.aborted) return emptyOutcome({ isCanceled: true });
      const started = await this.runOnce(job, signal);
      if (started.kind === "outcome") return started.outcome;
      why = started.why;
      this.logger.warn({ attempt, why }, "fork server died under a job; running it again on a fresh server");
    }
    return emptyOutcome({ infraError: `${why} (job ran ${MAX_ATTEMPTS} times, each time the server died under it)` });
  }

  private async runOnce(
    job: ForkJob,
    signal?: AbortSignal,
  ): Promise<{ kind: "outcome"; outcome: ExecOutcome } | { kind: "server-died"; why: string }> {
    try {
      await (this.ready ?? this.start());
    } catch (e) {
      return {
        kind: "outcome",
        outcome: emptyOutcome({ infraError: `fork server did not start: ${(e as Error).message}` }),
      };
    }
    const stdin = this.server?.stdin;
    if (!stdin) return { kind: "server-died", why: "fork server is gone" };
    const id = this.nextId++;
    const attempt = await new Promise<Attempt>((resolve) => {
      const onAbort = (): void => {
        stdin.write(JSON.stringify({ op: "cancel", id }) + "\n");
      };
      const watchdog = setTimeout(() => {
        // The server missed a deadline it enforces itself: it is wedged. Restart it.
        this.logger.warn({ id }, "fork server missed a job deadline; restarting it");
        this.kill();
      }, job.timeoutMs + SERVER_GRACE_MS);
      watchdog.unref();
      this.pending.set(id, {
        resolve: (a) => {
          signal?.removeEventListener("abort", onAbort);
          resolve(a);
        },
        watchdog,
      });
      signal?.addEventListener("abort", onAbort, { once: true });
      stdin.write(JSON.stringify({ op: "run", id, ...job, stdin: job.stdin ?? null }) + "\n");
    });
    if (attempt.kind === "server-died")
      return signal?.aborted ? { kind: "outcome", outcome: emptyOutcome({ isCanceled: true }) } : attempt;
    return { kind: "outcome", outcome: this.toOutcome(attempt.line) };
  }

  /** Kill the server's group at once (and, through its sandbox, every job). Pending jobs settle with infraError. */
  kill(): void {
    void this.server?.terminate("shutdown", 0);
  }

  /** Kill and wait for the server to be gone. */
  async close(): Promise<void> {
    const server = this.server;
    if (!server) return;
    this.kill();
    await server.done;
  }

  /** Pid of the running server process (tests use it to simulate a crash). */
  get pid(): number | undefined {
    return this.server?.pid;
  }
}
