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
 * - Loss: the first infrastructure failure on an engine (an `infraError`, a
 *   job cut short by the engine rather than by its caller, a throw) takes it
 *   out of placement at once, before anything else can be placed there; it is
 *   then probed: back in placement when it answers, dropped (an event in
 *   `events`, logged) when not. A job whose engine was dropped ran nowhere: it
 *   goes back to the queue and is placed on a live engine only, never scored.
 *   When no engine is left, the job's outcome is an `infraError` (an error of
 *   ours, never the participant's failure). An environment open on a dropped
 *   engine ends with an `infraError` naming the engine (`backendProblem` says
 *   so), which the caller charges to us, never to the participant.
 * - Each outcome and environment names its engine (`engine`); an environment
 *   keeps its engine's views from outside (`changedPaths`, `readFileOutside`,
 *   `copyInOutside`) and its spec's `prepare` runs on the engine chosen (an
 *   image built there).
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

/** One engine of the pool and its state (exported for tests that drive placement with stand-in sandboxes). */
export interface PoolEngine {
  url: string;
  env: NodeJS.ProcessEnv;
  sandbox: DockerSandbox;
  capacity: number;
  /** Jobs running and environments open on it. */
  busy: number;
  /** Why it was dropped, or null while it serves. */
  lost: string | null;
  /** The probe after an infrastructure failure, while it runs: the engine takes no new work meanwhile. */
  checking: Promise<string | null> | null;
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
  private readonly listeners: Array<(e: PoolEvent) => void> = [];
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
    const event: PoolEvent = { at: new Date().toISOString(), engine, kind, reason };
    this.events.push(event);
    for (const l of this.listeners.splice(0)) l(event);
    this.logger.warn({ engine, kind, reason }, `docker pool: engine ${kind}`);
    if (kind === "excluded") this.warnings.push(`engine ${engine} excluded: ${reason}`);
  }

  /** The first event (already recorded or to come) that `accept` takes. */
  nextEvent(accept: (e: PoolEvent) => boolean = () => true): Promise<PoolEvent> {
    const seen = this.events.find(accept);
    if (seen) return Promise.resolve(seen);
    return new Promise((resolve) => {
      const listen = (e: PoolEvent): void => {
        if (accept(e)) resolve(e);
        else this.listeners.push(listen);
      };
      this.listeners.push(listen);
    });
  }

  /**
   * The live engine with the most free capacity, once one has room (an engine being probed takes no work);
   * rejects when none is left or on abort.
   */
  private async acquire(signal?: AbortSignal): Promise<PoolEngine> {
    for (;;) {
      if (this.closed) throw new SandboxError("E_SANDBOX_CLOSED", "the docker pool was closed");
      signal?.throwIfAborted();
      const serving = this.engines.filter((e) => e.lost === null);
      if (serving.length === 0)
        throw new SandboxError(
          "E_SANDBOX_UNAVAILABLE",
          `no engine of the docker pool is left: ${this.events.map((e) => `${e.engine}: ${e.reason}`).join("; ")}`,
        );
      const live = serving.filter((e) => e.checking === null);
      const best =
        live.length === 0 ? null : live.reduce((a, b) => (b.capacity - b.busy > a.capacity - a.busy ? b : a));
      if (best !== null && best.busy < best.capacity) {
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

  /**
   * Whether `e` still answers: null when it does, else why it was dropped (an event). Call it at once on an
   * infrastructure failure there (before releasing the work): `e` takes no new work until the probe answers,
   * and one probe serves every failure seen meanwhile. Every waiter looks again when it ends.
   */
  engineLost(e: PoolEngine): Promise<string | null> {
    if (e.lost !== null) return Promise.resolve(e.lost);
    e.checking ??= probeEngine(e.env).then(
      (probe) => {
        e.checking = null;
        if (!probe.ok && e.lost === null) {
          e.lost = probe.reason;
          this.record(e.url, "lost", probe.reason);
          void e.sandbox.close().catch(() => undefined);
        }
        this.wakeAll();
        return e.lost;
      },
      (err: Error) => {
        e.checking = null;
        this.wakeAll();
        return `probing the engine failed: ${err.message}`;
      },
    );
    return e.checking;
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
      }
      // An infrastructure failure (or a job cut short by its engine, not by its caller): the engine is
      // taken out of placement before its capacity is released, so nothing queued lands there meanwhile.
      const suspect = !this.closed && !signal?.aborted && (o.infraError !== undefined || o.isCanceled);
      const lost = suspect ? this.engineLost(e) : null;
      this.release(e);
      // A job whose engine went away ran nowhere: it goes back to the queue, for a live engine.
      if (lost !== null && (await lost) !== null && !this.closed && !signal?.aborted) continue;
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
        const lost = !signal?.aborted && !this.closed ? this.engineLost(e) : null;
        this.release(e);
        if (lost !== null && (await lost) !== null && !signal?.aborted && !this.closed) continue;
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
    // What the engine shows from outside (docker diff, docker cp), as the inner environment offers it.
    if (inner.changedPaths) this.changedPaths = () => inner.changedPaths!();
    if (inner.readFileOutside) this.readFileOutside = (path, maxBytes) => inner.readFileOutside!(path, maxBytes);
    if (inner.copyInOutside) this.copyInOutside = (hostDir, target) => inner.copyInOutside!(hostDir, target);
  }

  declare readonly changedPaths?: NonNullable<Environment["changedPaths"]>;
  declare readonly readFileOutside?: NonNullable<Environment["readFileOutside"]>;
  declare readonly copyInOutside?: NonNullable<Environment["copyInOutside"]>;

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
          engines.push({ url: h.url, env, sandbox, capacity, busy: 0, lost: null, checking: null });
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
