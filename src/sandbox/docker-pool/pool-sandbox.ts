/**
 * The `docker-pool` backend: several container engines as one sandbox. Each
 * engine is a docker sandbox of its own (../docker/docker-sandbox.ts: same
 * isolation, limits and cleanup); this module only places work on them.
 *
 * - Placement: a job or an environment goes to the live engine with the most
 *   free capacity (capacity minus what it runs and holds open); when every
 *   engine is full it waits its turn (FIFO).
 * - Start: every engine must answer and hold the pool's images; an engine that
 *   does not is excluded with its reason (a `warnings` line and an event), and
 *   the pool refuses to start when none is left.
 * - Loss: a job whose engine stopped answering is an infrastructure event of
 *   the pool (recorded in `events`, logged), never the job's outcome: the
 *   engine is dropped and the job runs again on another one. An environment
 *   open there ends with an `infraError` naming the engine (`backendProblem`
 *   says so), which the caller charges to us, never to the participant.
 * - Each outcome and environment names its engine (`engine`).
 */
import type { Logger } from "../../util/logger.js";
import type { ExecOutcome, ExecRequest, Sandbox, SandboxLimits } from "../types.js";
import type { SandboxCapability } from "../capabilities.js";
import type { Environment, EnvironmentExecOptions, EnvironmentExecOutcome, EnvironmentSpec } from "../environment.js";
import { SandboxError } from "../errors.js";
import { emptyOutcome } from "../types.js";
import { docker } from "../docker/docker-cli.js";
import { probeEngine } from "../docker/engine.js";
import { createDockerSandbox, DEFAULT_DOCKER_IMAGE, type DockerSandbox } from "../docker/docker-sandbox.js";
import type { DockerMode } from "../docker/docker-sandbox.js";
import type { PoolHost } from "./hosts.js";

/** Something that happened to an engine of the pool: an infrastructure event, never a score. */
export interface PoolEvent {
  /** ISO time. */
  at: string;
  engine: string;
  kind: "excluded" | "lost";
  reason: string;
}

export interface DockerPoolOptions {
  hosts: readonly PoolHost[];
  limits: SandboxLimits;
  logger: Logger;
  /** Capacity of an engine that names none; default 2. */
  capacityPerEngine?: number;
  /** Job image; default $A2A_BENCH_DOCKER_IMAGE, else the docker backend's default. */
  image?: string;
  /** Images every engine must hold at start (default: the job image). */
  images?: readonly string[];
  mode?: DockerMode;
  owner?: string;
  /** Environment the docker CLI starts from (DOCKER_HOST is set per engine). */
  env?: NodeJS.ProcessEnv;
}

interface PoolEngine {
  url: string;
  env: NodeJS.ProcessEnv;
  sandbox: DockerSandbox;
  capacity: number;
  /** Jobs running and environments open on it. */
  busy: number;
  /** Why it was dropped, or null while it serves. */
  lost: string | null;
}

/** Default jobs and environments in flight per engine. */
export const DEFAULT_ENGINE_CAPACITY = 2;

export class DockerPoolSandbox implements Sandbox {
  readonly backend = "docker-pool" as const;
  readonly isolation = "docker" as const;
  readonly capabilities: ReadonlySet<SandboxCapability> = new Set<SandboxCapability>(["environments", "images"]);
  readonly warnings: string[] = [];
  /** What happened to the engines (excluded at start, lost while running), in order. */
  readonly events: PoolEvent[] = [];
  private readonly waiting: Array<() => void> = [];
  private closed = false;

  constructor(
    private readonly engines: PoolEngine[],
    private readonly logger: Logger,
  ) {}

  /** The engines serving now: URL, capacity, what each runs or holds. */
  placement(): Array<{ engine: string; capacity: number; busy: number; lost: string | null }> {
    return this.engines.map((e) => ({ engine: e.url, capacity: e.capacity, busy: e.busy, lost: e.lost }));
  }

  record(engine: string, kind: PoolEvent["kind"], reason: string): void {
    this.events.push({ at: new Date().toISOString(), engine, kind, reason });
    this.logger.warn({ engine, kind, reason }, `docker pool: engine ${kind}`);
    if (kind === "excluded") this.warnings.push(`engine ${engine} excluded: ${reason}`);
  }

  /** The live engine with the most free capacity, once one has room; rejects when none is left or on abort. */
  private async acquire(signal?: AbortSignal): Promise<PoolEngine> {
    for (;;) {
      if (this.closed) throw new SandboxError("E_SANDBOX_CLOSED", "the docker pool was closed");
      signal?.throwIfAborted();
      const live = this.engines.filter((e) => e.lost === null);
      if (live.length === 0)
        throw new SandboxError(
          "E_SANDBOX_UNAVAILABLE",
          `no engine of the docker pool is left: ${this.events.map((e) => `${e.engine}: ${e.reason}`).join("; ")}`,
        );
      const best = live.reduce((a, b) => (b.capacity - b.busy > a.capacity - a.busy ? b : a));
      if (best.busy < best.capacity) {
        best.busy++;
        return best;
      }
      await new Promise<void>((resolve) => {
        const wake = (): void => {
          signal?.removeEventListener("abort", wake);
          resolve();
        };
        this.waiting.push(wake);
        signal?.addEventListener("abort", wake, { once: true });
      });
    }
  }

  private release(e: PoolEngine): void {
    e.busy--;
    this.wakeAll();
  }

  private wakeAll(): void {
    for (const w of this.waiting.splice(0)) w();
  }

  /** Whether `e` still answers; when not, it is dropped (an event) and every waiter looks again. */
  async engineLost(e: PoolEngine): Promise<string | null> {
    if (e.lost !== null) return e.lost;
    const probe = await probeEngine(e.env);
    if (probe.ok) return null;
    if (e.lost === null) {
      e.lost = probe.reason;
      this.record(e.url, "lost", probe.reason);
      void e.sandbox.close().catch(() => undefined);
      this.wakeAll();
    }
    return e.lost;
  }

  async exec(req: ExecRequest, signal?: AbortSignal): Promise<ExecOutcome> {
    if (this.closed) throw new SandboxError("E_SANDBOX_CLOSED", "exec() after close()");
    for (;;) {
      let e: PoolEngine;
      try {
        e = await this.acquire(signal);
      } catch (err) {
        if (signal?.aborted) return emptyOutcome({ isCanceled: true });
        return emptyOutcome({ infraError: (err as Error).message });
      }
      let o: ExecOutcome;
      try {
        o = await e.sandbox.exec(req, signal);
      } catch (err) {
        o = emptyOutcome({ infraError: (err as Error).message });
      } finally {
        this.release(e);
      }
      // A job that failed because its engine went away ran nowhere: it goes back to the queue.
      if (o.infraError !== undefined && !o.isCanceled && !this.closed && (await this.engineLost(e)) !== null) continue;
      return { ...o, engine: e.url };
    }
  }

  execMany(reqs: ExecRequest[], signal?: AbortSignal): Promise<ExecOutcome[]> {
    return Promise.all(reqs.map((r) => this.exec(r, signal)));
  }

  warmUp(): void {
    for (const e of this.engines) if (e.lost === null) e.sandbox.warmUp();
  }

  async openEnvironment(spec: EnvironmentSpec, signal?: AbortSignal): Promise<Environment> {
    for (;;) {
      const e = await this.acquire(signal);
      let inner: Environment;
      try {
        inner = await e.sandbox.openEnvironment(spec, signal);
      } catch (err) {
        this.release(e);
        if (!signal?.aborted && !this.closed && (await this.engineLost(e)) !== null) continue;
        throw err;
      }
      return new PoolEnvironment(inner, e, this, () => this.release(e));
    }
  }

  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    this.wakeAll();
    await Promise.all(this.engines.map((e) => e.sandbox.close().catch(() => undefined)));
  }
}

/** An environment on one engine of the pool; its loss is the pool's (an infrastructure event), never the code's. */
class PoolEnvironment implements Environment {
  readonly id: string;
  readonly engine: string;
  readonly separateStreams?: boolean;
  private released = false;
  constructor(
    private readonly inner: Environment,
    private readonly e: PoolEngine,
    private readonly pool: DockerPoolSandbox,
    private readonly onRelease: () => void,
  ) {
    this.id = inner.id;
    this.engine = e.url;
    if (inner.separateStreams !== undefined) this.separateStreams = inner.separateStreams;
  }

  async exec(argv: readonly string[], options: EnvironmentExecOptions): Promise<EnvironmentExecOutcome> {
    const o = await this.inner.exec(argv, options);
    if (o.infraError === undefined || o.isCanceled) return o;
    const lost = await this.pool.engineLost(this.e);
    return lost === null ? o : { ...o, infraError: `engine ${this.engine} of the docker pool was lost: ${lost}` };
  }

  readFile(path: string): Promise<string> {
    return this.inner.readFile(path);
  }

  writeFile(path: string, content: string): Promise<void> {
    return this.inner.writeFile(path, content);
  }

  async backendProblem(): Promise<string | null> {
    const lost = await this.pool.engineLost(this.e);
    if (lost !== null) return `engine ${this.engine} of the docker pool was lost: ${lost}`;
    return this.inner.backendProblem();
  }

  async limitProblem(): Promise<string | null> {
    return this.inner.limitProblem ? this.inner.limitProblem() : null;
  }

  async close(): Promise<void> {
    try {
      await this.inner.close();
    } finally {
      if (!this.released) {
        this.released = true;
        this.onRelease();
      }
    }
  }
}

/** Whether `image` is in the engine at `env` (null), else why not. */
async function imageProblem(image: string, env: NodeJS.ProcessEnv): Promise<string | null> {
  const r = await docker(["image", "inspect", "--format", "{{.Id}}", image], { env });
  if (r.exitCode === 0) return null;
  return `image ${image} is not in this engine (load it there: docker save ${image} | docker --host URL load)`;
}

/**
 * Start the pool: each engine probed and its images checked; the ones that fail are excluded (warnings,
 * events). Rejects (SandboxError E_SANDBOX_UNAVAILABLE, every engine's reason) when none is left.
 */
export async function createDockerPool(o: DockerPoolOptions): Promise<DockerPoolSandbox> {
  const base = o.env ?? process.env;
  const image = o.image ?? (base["A2A_BENCH_DOCKER_IMAGE"] || DEFAULT_DOCKER_IMAGE);
  const images = o.images ?? [image];
  const excluded: Array<{ url: string; reason: string }> = [];
  const engines: PoolEngine[] = [];
  await Promise.all(
    o.hosts.map(async (h) => {
      const env: NodeJS.ProcessEnv = { ...base, DOCKER_HOST: h.url };
      delete env["DOCKER_CONTEXT"];
      const capacity = h.capacity ?? o.capacityPerEngine ?? DEFAULT_ENGINE_CAPACITY;
      const probe = await probeEngine(env);
      let reason: string | null = probe.ok ? null : probe.reason;
      for (const img of images) reason ??= await imageProblem(img, env);
      if (reason === null) {
        try {
          const sandbox = await createDockerSandbox({
            limits: o.limits,
            logger: o.logger,
            concurrency: capacity,
            image,
            ...(o.mode ? { mode: o.mode } : {}),
            ...(o.owner ? { owner: o.owner } : {}),
            env,
          });
          engines.push({ url: h.url, env, sandbox, capacity, busy: 0, lost: null });
          return;
        } catch (e) {
          reason = (e as Error).message;
        }
      }
      excluded.push({ url: h.url, reason });
    }),
  );
  // In the operator's order, whatever answered first.
  engines.sort((a, b) => o.hosts.findIndex((h) => h.url === a.url) - o.hosts.findIndex((h) => h.url === b.url));
  if (engines.length === 0)
    throw new SandboxError(
      "E_SANDBOX_UNAVAILABLE",
      `no engine of the docker pool can serve: ${excluded.map((x) => `${x.url}: ${x.reason}`).join("; ")}`,
    );
  const pool = new DockerPoolSandbox(engines, o.logger);
  for (const x of excluded) pool.record(x.url, "excluded", x.reason);
  return pool;
}
