/**
 * The `docker` backend: untrusted programs in containers of an image
 * (default a2a-bench/debian-base:bookworm, or $A2A_BENCH_DOCKER_IMAGE),
 * through the engine at DOCKER_HOST (Docker or Podman; see docker-cli.ts).
 *
 * Two modes, chosen by measurement (bench suite swebench-container, BENCHMARKS.md):
 * - `per-run` (default): one long-lived container per sandbox, every job a
 *   `docker exec` into it as its OWN uid (JOB_UID_BASE + n), so jobs cannot
 *   signal each other or read each other's 0700 directories, and the
 *   bootstrap kills whatever a job leaves under its uid. 155 ms per
 *   HumanEval-sized python job (median, BENCHMARKS.md row 9c).
 * - `per-job`: a fresh container per job (`docker run --rm`): 454 ms per job.
 * What a job sees: the image's own files (never an image holding this package:
 * job-image.ts), a tmpfs /tmp where its 0700 job dir lives, and no host
 * directory at all (no bind mounts, no engine socket; only the engine's own
 * /etc/hosts, /etc/hostname and /etc/resolv.conf).
 * Both: --network none, all capabilities dropped, no-new-privileges,
 * read-only root with a tmpfs /tmp, non-root uids, per-program rlimits from
 * SandboxLimits (address space, processes, CPU seconds) plus container-wide
 * cgroup caps (memory, pids, CPUs) sized for the jobs in flight.
 * Nothing outlives the owner: see keepalive.ts and reaper.ts.
 */
import { randomBytes } from "node:crypto";
import { availableParallelism } from "node:os";
import type { Logger } from "../../util/logger.js";
import type { ExecOutcome, ExecRequest, Sandbox, SandboxLimits } from "../types.js";
import { refusedRequest, type SandboxCapability } from "../capabilities.js";
import type { Environment, EnvironmentSpec } from "../environment.js";
import { openDockerEnvironment } from "./docker-environment.js";
import { SandboxError } from "../errors.js";
import { Limiter, runCancellable } from "../concurrency.js";
import { emptyOutcome } from "../types.js";
import { TMPFS_BYTES } from "../limits.js";
import { docker, dockerBinary } from "./docker-cli.js";
import { runChild } from "../../process/index.js";
import { engineEnv, probeEngine } from "./engine.js";
import { KeepaliveContainer, createArgs, type ContainerSpec } from "./keepalive.js";
import { reapOrphans } from "./reaper.js";
import { JOB_BOOTSTRAP, splitStatus, type JobPayload } from "./job-bootstrap.js";
import { jobImageProblem } from "./job-image.js";

/** Default image of the docker backend. */
export const DEFAULT_DOCKER_IMAGE = "a2a-bench/debian-base:bookworm";
/** uid (and gid) of the container's main process: nobody, as the local sandbox's SANDBOX_UID. */
export const CONTAINER_UID = 65534;
/** Jobs run as JOB_UID_BASE + (n mod JOB_UID_SPAN): a fresh uid per job, none shared with the host's users. */
export const JOB_UID_BASE = 200_000;
const JOB_UID_SPAN = 100_000;
/** Extra pids of the container beyond its jobs' own limits (main process, bootstraps, exec shims). */
const PIDS_SLACK = 16;

export type DockerMode = "per-run" | "per-job";

export interface DockerSandboxOptions {
  limits: SandboxLimits;
  logger: Logger;
  /** Jobs in flight at once; default: available cores. */
  concurrency?: number;
  /** Image; default $A2A_BENCH_DOCKER_IMAGE, else DEFAULT_DOCKER_IMAGE. */
  image?: string;
  mode?: DockerMode;
  /** Owner name for the container label (default `sandbox`). */
  owner?: string;
  /** Environment of the docker CLI (default: engineEnv()). */
  env?: NodeJS.ProcessEnv;
}

const INTERPRETER = { python: ["/usr/bin/python3", "-B"], bash: ["/bin/bash"], node: ["/usr/bin/node"] } as const;
const EXT = { python: "py", bash: "sh", node: "js" } as const;

export class DockerSandbox implements Sandbox {
  readonly backend = "docker" as const;
  readonly isolation = "docker" as const;
  readonly warnings: readonly string[] = [];
  /** Per-item environments (docker-environment.ts); nothing of the host (no work dir, binds, overlays, asRoot). */
  readonly capabilities: ReadonlySet<SandboxCapability> = new Set<SandboxCapability>(["environments", "images"]);
  readonly image: string;
  readonly mode: DockerMode;
  private readonly limiter: Limiter;
  private readonly concurrency: number;
  private readonly env: NodeJS.ProcessEnv;
  private container: Promise<KeepaliveContainer> | null = null;
  private closed = false;
  private readonly running = new Set<AbortController>();
  /** Environments still open: close() ends them too. */
  private readonly environments = new Set<Environment>();
  private seq = 0;
  /** Whether the image may hold jobs (job-image.ts), asked once, on the first job. */
  private imageVerdict: Promise<string | null> | null = null;

  constructor(private readonly opts: DockerSandboxOptions) {
    this.concurrency = opts.concurrency ?? availableParallelism();
    this.limiter = new Limiter(this.concurrency);
    this.image = opts.image ?? (process.env["A2A_BENCH_DOCKER_IMAGE"] || DEFAULT_DOCKER_IMAGE);
    this.mode = opts.mode ?? "per-run";
    this.env = opts.env ?? engineEnv();
  }

  private spec(jobs: number): ContainerSpec {
    const l = this.opts.limits;
    return {
      image: this.image,
      owner: this.opts.owner ?? "sandbox",
      user: `${CONTAINER_UID}:${CONTAINER_UID}`,
      readOnlyRoot: true,
      tmpfs: [`/tmp:rw,nosuid,nodev,size=${TMPFS_BYTES * jobs},mode=1777`],
      memoryBytes: l.memoryBytes * jobs,
      pids: l.maxProcesses * jobs + PIDS_SLACK,
      cpus: jobs,
    };
  }

  /** The run's container (per-run mode), started on first use; a failed start is retried by the next job. */
  private async shared(): Promise<KeepaliveContainer> {
    // A container that died under us (engine restart, removed by hand) is replaced, not reused.
    if (
      this.container &&
      !(await this.container.then(
        (k) => k.alive,
        () => false,
      ))
    ) {
      const dead = this.container;
      this.container = null;
      void dead
        .then(
          (k) => k.remove(),
          () => undefined,
        )
        .catch(() => undefined);
    }
    if (!this.container) {
      const name = `a2a-bench-sbx-${process.pid}-${randomBytes(4).toString("hex")}`;
      this.container = KeepaliveContainer.start(this.spec(this.concurrency), name, this.env);
      this.container.catch(() => {
        this.container = null;
      });
    }
    return this.container;
  }

  warmUp(): void {
    if (!this.closed && this.mode === "per-run")
      this.shared().catch(() => {
        /* surfaces on the first job */
      });
  }

  async exec(req: ExecRequest, signal?: AbortSignal): Promise<ExecOutcome> {
    if (this.closed) throw new SandboxError("E_SANDBOX_CLOSED", "exec() after close()");
    return runCancellable(
      this.limiter,
      this.running,
      signal,
      () => emptyOutcome({ isCanceled: true }),
      (s) => this.execOne(req, s),
    );
  }

  execMany(reqs: ExecRequest[], signal?: AbortSignal): Promise<ExecOutcome[]> {
    return Promise.all(reqs.map((r) => this.exec(r, signal)));
  }

  private async execOne(req: ExecRequest, signal: AbortSignal): Promise<ExecOutcome> {
    const lacking = refusedRequest(this, req);
    if (lacking !== null) return emptyOutcome({ infraError: `${lacking}; files go in \`files\`` });
    this.imageVerdict ??= jobImageProblem(this.image, this.env);
    const refused = await this.imageVerdict;
    if (refused !== null) {
      this.imageVerdict = null; // an engine hiccup or an image loaded meanwhile: asked again by the next job
      return emptyOutcome({ infraError: refused });
    }
    if (signal.aborted) return emptyOutcome({ isCanceled: true });
    const uid = JOB_UID_BASE + (this.seq++ % JOB_UID_SPAN);
    const nonce = `a2a-status-${randomBytes(12).toString("hex")}:`;
    const payload: JobPayload = {
      nonce,
      interpreter: [...INTERPRETER[req.language]],
      ext: EXT[req.language],
      code: req.code,
      files: req.files ?? {},
      stdin: req.stdin ?? "",
      env: req.env ?? {},
      limits: this.opts.limits,
    };
    const boot = ["/usr/bin/python3", "-I", "-S", "-c", JOB_BOOTSTRAP];
    let argv: string[];
    let kill: () => Promise<unknown>;
    if (this.mode === "per-run") {
      let c: KeepaliveContainer;
      try {
        c = await this.shared();
      } catch (e) {
        return emptyOutcome({ infraError: (e as Error).message });
      }
      if (signal.aborted) return emptyOutcome({ isCanceled: true });
      argv = ["exec", "-i", "-u", `${uid}:${uid}`, "-w", "/tmp", c.id, ...boot];
      // Killing the exec client leaves its process running: kill the job's uid inside instead.
      kill = () => docker(["exec", "-u", `${uid}:${uid}`, c.id, "/bin/sh", "-c", "kill -9 -1"], { env: this.env });
    } else {
      const name = `a2a-bench-job-${process.pid}-${randomBytes(6).toString("hex")}`;
      const create = createArgs(this.spec(1), name);
      // `docker run` takes create's flags; the job's bootstrap replaces the keepalive command.
      const flags = create.slice(1, create.indexOf("--entrypoint"));
      argv = [
        "run",
        ...flags,
        "--user",
        `${uid}:${uid}`,
        "-w",
        "/tmp",
        "--entrypoint",
        boot[0]!,
        this.image,
        ...boot.slice(1),
      ];
      kill = () => docker(["rm", "-f", "-v", name], { env: this.env });
    }
    return this.supervise(argv, JSON.stringify(payload), nonce, req.timeoutMs, signal, kill);
  }

  /** Run one job's docker client: output capped, timeout and abort kill the job (then the client), first reason wins. */
  private async supervise(
    argv: string[],
    payload: string,
    nonce: string,
    timeoutMs: number,
    signal: AbortSignal,
    kill: () => Promise<unknown>,
  ): Promise<ExecOutcome> {
    const cap = this.opts.limits.maxOutputBytes;
    const o = await runChild({
      file: dockerBinary(this.env),
      args: argv,
      env: this.env,
      stdin: { input: payload },
      stdout: { tail: cap, stopWhenFull: true },
      // The status line rides on stderr: keep a little more than the cap so it is never cut off.
      stderr: { tail: cap + 512, stopWhenFull: true },
      timeoutMs,
      graceMs: 0,
      signal,
      // Killing the client would leave the job running: the job (or its container) goes first.
      stopWork: kill,
    });
    const { stderr, status } = splitStatus(o.stderr, nonce);
    const base = {
      timedOut: o.timedOut,
      isCanceled: o.isCanceled,
      outputLimitExceeded: o.outputLimitExceeded,
      durationMs: o.durationMs,
      stdoutTail: o.stdout,
      stderrTail: stderr,
    };
    if (o.spawnError) return emptyOutcome({ ...base, infraError: `cannot run the docker CLI: ${o.spawnError}` });
    if (status?.setupError)
      return emptyOutcome({ ...base, infraError: `job setup in the container: ${status.setupError}` });
    if (status) return emptyOutcome({ ...base, exitCode: status.exitCode, signal: status.signal });
    if (o.terminationReason !== null) return emptyOutcome({ ...base, signal: "SIGKILL" });
    // No status line and we did not stop it: the engine or the container failed (exit 125-127 are the CLI's own).
    return emptyOutcome({
      ...base,
      infraError: `docker ${argv[0]} exited ${o.exitCode} without a job status: ${stderr.trim().slice(-300)}`,
    });
  }

  /** A per-item environment from `spec.image` (docker-environment.ts); limits default to this sandbox's. */
  async openEnvironment(spec: EnvironmentSpec, signal?: AbortSignal): Promise<Environment> {
    if (this.closed) throw new SandboxError("E_SANDBOX_CLOSED", "openEnvironment() after close()");
    const e = await openDockerEnvironment({ ...spec, limits: spec.limits ?? this.opts.limits }, this.env, {
      ...(signal ? { signal } : {}),
      onClose: (closed) => this.environments.delete(closed),
    });
    if (this.closed) {
      await e.close().catch(() => undefined);
      throw new SandboxError("E_SANDBOX_CLOSED", "the sandbox was closed while the environment started");
    }
    this.environments.add(e);
    return e;
  }

  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    for (const ac of this.running) ac.abort();
    const open = [...this.environments];
    this.environments.clear();
    await Promise.all(
      open.map((e) =>
        e
          .close()
          .catch((err: Error) =>
            this.opts.logger.warn({ err: err.message }, "docker sandbox: removing an environment failed"),
          ),
      ),
    );
    const c = this.container;
    this.container = null;
    if (c)
      await c
        .then(
          (k) => k.remove(),
          () => undefined,
        )
        .catch((e: Error) =>
          this.opts.logger.warn({ err: e.message }, "docker sandbox: removing the container failed"),
        );
  }
}

/**
 * Create the docker sandbox: the engine must answer (E_SANDBOX_UNAVAILABLE says how to start one); orphans
 * of dead owners are reaped first. A missing image surfaces as the first job's `infraError`.
 */
export async function createDockerSandbox(opts: DockerSandboxOptions): Promise<DockerSandbox> {
  const env = opts.env ?? engineEnv();
  const probe = await probeEngine(env);
  if (!probe.ok) throw new SandboxError("E_SANDBOX_UNAVAILABLE", probe.reason);
  await reapOrphans(env, opts.logger);
  // The image is checked when the first job needs it: a SWE-bench run uses per-instance images only.
  return new DockerSandbox({ ...opts, env });
}
