/**
 * Node side of the fork server: starts it (inside one sandbox), sends job
 * lines, matches result lines to jobs. Jobs cannot kill the server (other
 * uid, or a seccomp filter on kill: see fork-server-program.ts), but if it
 * dies anyway, nothing that was running on it is scored from that death:
 * each such job runs again, once, on a fresh server (a second death settles
 * it with `infraError`, never as a program failure). A job's result is
 * judged only from its own result line.
 */
import { spawn, type ChildProcessWithoutNullStreams } from "node:child_process";
import { createInterface } from "node:readline";
import type { Logger } from "../../util/logger.js";
import type { ExecOutcome, SandboxLimits } from "../types.js";
import { emptyOutcome } from "./run-process.js";
import type { LaunchCommand } from "./launch-command.js";

/** Extra time the server gets past a job's own timeout before we declare it hung (ms). */
export const SERVER_GRACE_MS = 5_000;
/** Runs of one job when servers die under it: the first, plus one re-run on a fresh server. */
export const MAX_ATTEMPTS = 2;

export interface ForkJob {
  code: string;
  timeoutMs: number;
  env: Record<string, string>;
  stdin?: string;
  files?: Record<string, string>;
  limits: SandboxLimits;
  /** Size of each job's private tmpfs mounts ("private" mode), bytes. */
  tmpfsBytes: number;
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
  private child: ChildProcessWithoutNullStreams | null = null;
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
    const child = spawn(cmd.file, cmd.args, {
      cwd: cmd.spawnCwd,
      env: this.env,
      detached: true,
      stdio: ["pipe", "pipe", "pipe"],
    });
    this.child = child;
    const stderr: string[] = [];
    child.stderr.setEncoding("utf8").on("data", (s: string) => {
      if (stderr.length < 50) stderr.push(s);
    });
    child.stdin.on("error", () => {
      /* handled by exit */
    });
    const lines = createInterface({ input: child.stdout });
    this.ready = new Promise((resolve, reject) => {
      lines.on("line", (line) => {
        let msg: ResultLine & { ready?: boolean };
        try {
          msg = JSON.parse(line) as ResultLine & { ready?: boolean };
        } catch {
          return;
        }
        if (msg.ready) return resolve();
        this.settle(msg.id, { kind: "result", line: msg });
      });
      child.on("error", (e) => reject(e));
      child.on("close", (code, sig) => {
        if (this.child === child) {
          this.child = null;
          this.ready = null;
        }
        const why = `fork server exited (code ${code}, signal ${sig})${stderr.length ? `: ${stderr.join("").slice(-500)}` : ""}`;
        reject(new Error(why));
        for (const id of [...this.pending.keys()]) this.settle(id, { kind: "server-died", why });
        if (this.pending.size === 0 && code !== 0 && sig !== "SIGKILL") this.logger.warn({ why }, "fork server died");
      });
    });
    this.ready.catch(() => {
      /* surfaced per job */
    });
    return this.ready;
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
    const child = this.child;
    if (!child) return { kind: "server-died", why: "fork server is gone" };
    const id = this.nextId++;
    const attempt = await new Promise<Attempt>((resolve) => {
      const onAbort = (): void => {
        child.stdin.write(JSON.stringify({ op: "cancel", id }) + "\n");
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
      child.stdin.write(JSON.stringify({ op: "run", id, ...job, stdin: job.stdin ?? null }) + "\n");
    });
    if (attempt.kind === "server-died")
      return signal?.aborted ? { kind: "outcome", outcome: emptyOutcome({ isCanceled: true }) } : attempt;
    return { kind: "outcome", outcome: this.toOutcome(attempt.line) };
  }

  /** Kill the server (and, through its sandbox, every job). Pending jobs settle with infraError. */
  kill(): void {
    const c = this.child;
    if (c?.pid) {
      try {
        process.kill(-c.pid, "SIGKILL");
      } catch {
        /* gone */
      }
    }
  }

  /** Kill and wait for the server to be gone. */
  async close(): Promise<void> {
    const c = this.child;
    if (!c) return;
    const gone = new Promise<void>((r) => c.once("close", () => r()));
    this.kill();
    await gone;
  }

  /** Pid of the running server process (tests use it to simulate a crash). */
  get pid(): number | undefined {
    return this.child?.pid;
  }
}
