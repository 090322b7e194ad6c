/**
 * The docker backend's `environments` capability (../environment.ts): one
 * container per environment, created from the spec's image (never pulled),
 * with the spec's files copied in before it starts (`docker cp` of a host
 * directory: never on a command line), started tied to this process
 * (keepalive.ts), each command its own exec (over the Engine API's unix
 * socket when DOCKER_HOST is one: api-exec.ts, no CLI process per command;
 * else `docker exec`), removed on close.
 *
 * Isolation, as the SWE-bench container path has always had it: no network
 * (unless the spec names an engine network to join: `spec.network`),
 * every capability dropped, no-new-privileges, cgroup caps from the limits
 * (memory and swap, pids, one CPU), a private tmpfs /tmp. The image's own
 * user and a writable root: the official SWE-bench images own /testbed and
 * their conda env as root and the tests write there; with the capabilities
 * dropped root cannot do more than the owner of those files. No host
 * directory is mounted and the engine's socket is never inside.
 *
 * A command's timeout or abort kills the container itself (the exec client's
 * death would not stop the command): the environment ends there. The wrapper's
 * own `timeout` acts first, so a command that outruns the exec's limit was held
 * by the participant (`kill -STOP -1` stops the wrapper): while the engine
 * answers, later calls report that as `limitExceeded`, the participant's,
 * never an `infraError`.
 *
 * Disk: overlay2 without project quotas cannot cap the writable layer, so
 * one file is capped by RLIMIT_FSIZE at `limits.diskBytes` and the layer's
 * sum (layer-size.ts) is measured every DISK_POLL_MS while a command runs
 * and once after it, that one awaited by the next call (off the command's
 * latency). Past the limit the container is killed and every call reports
 * `limitExceeded`: the participant's failure, never an infraError.
 */
import { lstat, mkdtemp, readFile, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { randomBytes } from "node:crypto";
import { ENVIRONMENT_DISK_BYTES, TMPFS_BYTES } from "../limits.js";
import { layerBytes } from "./layer-size.js";
import { SandboxError } from "../errors.js";
import { runChild } from "../../process/index.js";
import type { SandboxLimits } from "../types.js";
import {
  ENVIRONMENT_OUTPUT_BYTES,
  type Environment,
  type EnvironmentExecOptions,
  type EnvironmentExecOutcome,
  type EnvironmentSpec,
} from "../environment.js";
import { DiskLimit } from "../disk-limit.js";
import { KeepaliveContainer } from "./keepalive.js";
import { cliFailure, docker, dockerBinary } from "./docker-cli.js";
import { probeEngine } from "./engine.js";
import { engineSocketPath } from "./engine-api.js";
import { apiExec } from "./api-exec.js";

/** Processes beyond the per-program limit (a shell, an environment's activation, git, the exec shim). */
const PIDS_SLACK = 32;
/** Bytes of a file readFile returns at most (beyond it: an error, never a cut file). */
export const READ_FILE_MAX_BYTES = 16 * 1024 * 1024;
/** Limit of one readFile, ms: the file may be the code's (a FIFO, a link to /dev/zero). */
export const READ_FILE_TIMEOUT_MS = 30_000;

class DockerEnvironment implements Environment {
  private ended: string | null = null;
  /**
   * Set when the environment was ended for what its commands did (a command, or a process it left, kept the
   * command from ending within its limit: `kill -STOP -1` stops the wrapper and its `timeout`): later calls
   * report it as the participant's broken limit, never as the backend's failure.
   */
  private endedByCommands: string | null = null;
  /** The writable layer's limit: past it the participant's failure, the environment ended. */
  private readonly disk: DiskLimit;
  constructor(
    private readonly c: KeepaliveContainer,
    private readonly env: NodeJS.ProcessEnv,
    private readonly onClose: (e: Environment) => void,
    diskBytes: number,
  ) {
    this.disk = new DiskLimit(diskBytes, {
      // A measurement the engine could not give (its message) decides nothing.
      measure: async () => {
        const bytes = await layerBytes(this.c.id, this.env);
        return typeof bytes === "number" ? bytes : undefined;
      },
      end: async (why) => {
        this.ended = why;
        await docker(["kill", this.c.id], { env: this.env });
      },
      ended: () => this.ended !== null,
    });
  }

  /** The limit the participant broke: a command it held past its limit (the environment ended), else its disk. */
  async limitProblem(): Promise<string | null> {
    return (await this.heldByCommands()) ?? this.disk.problem();
  }

  /**
   * The time limit a command broke, when that ended the environment and the engine still answers (an engine
   * that stopped answering can hold a command too: then the failure is ours, never the participant's).
   */
  private async heldByCommands(): Promise<string | null> {
    if (this.endedByCommands === null) return null;
    return (await this.backendProblem()) === null ? this.endedByCommands : null;
  }

  get id(): string {
    return this.c.id;
  }

  /** Both paths keep stdout and stderr apart on request (the CLI without -t does; so do the API's frames). */
  readonly separateStreams = true;

  exec(argv: readonly string[], o: EnvironmentExecOptions): Promise<EnvironmentExecOutcome> {
    return this.disk.around(o, () => this.execOnce(argv, o));
  }

  private async execOnce(argv: readonly string[], o: EnvironmentExecOptions): Promise<EnvironmentExecOutcome> {
    if (this.ended !== null && !o.signal?.aborted) {
      const none = { output: "", exitCode: null, timedOut: false, isCanceled: false, durationMs: 0 };
      const held = await this.heldByCommands();
      if (held !== null) return { ...none, limitExceeded: held };
      return { ...none, infraError: this.ended };
    }
    const separate = o.streams === "separate";
    const maxOutputBytes = o.maxOutputBytes ?? ENVIRONMENT_OUTPUT_BYTES;
    // The command runs in the container, not in the client: on its timeout or abort the container is killed.
    const stop = (why: "timeout" | "cancel") => {
      if (why === "timeout" && this.ended === null)
        this.endedByCommands ??= `time limit: a command did not end within ${Math.round(o.timeoutMs / 1000)} s (a process of the environment stopped or held it), so the environment was ended`;
      this.ended ??= `the environment ended after a command's ${why === "timeout" ? "timeout" : "cancellation"}`;
      return docker(["kill", this.c.id], { env: this.env });
    };
    const socket = engineSocketPath(this.env);
    if (socket !== null)
      return apiExec(socket, this.c.id, argv, {
        timeoutMs: o.timeoutMs,
        maxOutputBytes,
        separate,
        stop,
        ...(o.signal ? { signal: o.signal } : {}),
      });
    const r = await runChild({
      file: dockerBinary(this.env),
      args: ["exec", this.c.id, ...argv],
      env: this.env,
      // Interleaved: one tail for both streams, the output in arrival order.
      stdout: { tail: maxOutputBytes },
      stderr: separate ? { tail: maxOutputBytes } : "stdout",
      timeoutMs: o.timeoutMs,
      graceMs: 0,
      ...(o.signal ? { signal: o.signal } : {}),
      stopWork: (why) => stop(why === "timeout" ? "timeout" : "cancel"),
    });
    return {
      output: r.stdout,
      ...(separate ? { stderr: r.stderr } : {}),
      exitCode: r.terminationReason !== null ? null : r.exitCode,
      timedOut: r.timedOut,
      isCanceled: r.isCanceled,
      ...(r.spawnError ? { infraError: `cannot run the docker CLI: ${r.spawnError}` } : {}),
      durationMs: r.durationMs,
    };
  }

  async readFile(path: string): Promise<string> {
    const over = (await this.heldByCommands()) ?? (await this.disk.problem());
    if (over !== null) throw new SandboxError("E_SANDBOX_SETUP", `readFile(${path}): ${over}`);
    if (this.ended !== null) throw new SandboxError("E_SANDBOX_CLOSED", `readFile(${path}): ${this.ended}`);
    // The path may be the code's: an endless file (/dev/zero) stops at the cap, a FIFO at the time limit.
    // A stopped `cat` may go on in the container; the environment is the code's and close() removes it.
    const r = await docker(["exec", this.c.id, "cat", "--", path], {
      env: this.env,
      maxOutputBytes: READ_FILE_MAX_BYTES,
      overflow: "stop",
      timeoutMs: READ_FILE_TIMEOUT_MS,
    });
    if (r.stdoutBytes > READ_FILE_MAX_BYTES)
      throw new SandboxError("E_SANDBOX_SETUP", `reading ${path}: larger than ${READ_FILE_MAX_BYTES} bytes`);
    if (r.timedOut)
      throw new SandboxError("E_SANDBOX_SETUP", `reading ${path}: no end within ${READ_FILE_TIMEOUT_MS / 1000} s`);
    if (r.exitCode !== 0) throw new SandboxError("E_SANDBOX_SETUP", cliFailure(`reading ${path}`, r));
    return r.stdout;
  }

  async writeFile(path: string, content: string): Promise<void> {
    const over = (await this.heldByCommands()) ?? (await this.disk.problem());
    if (over !== null) throw new SandboxError("E_SANDBOX_SETUP", `writeFile(${path}): ${over}`);
    if (this.ended !== null) throw new SandboxError("E_SANDBOX_CLOSED", `writeFile(${path}): ${this.ended}`);
    // The content goes through stdin; the path is an argument of sh, never spliced into its script.
    const r = await docker(["exec", "-i", this.c.id, "/bin/sh", "-c", 'cat > "$1"', "sh", path], {
      env: this.env,
      stdin: content,
    });
    if (r.exitCode !== 0) throw new SandboxError("E_SANDBOX_SETUP", cliFailure(`writing ${path}`, r));
  }

  async backendProblem(): Promise<string | null> {
    const probe = await probeEngine(this.env);
    return probe.ok ? null : `the container engine stopped answering: ${probe.reason}`;
  }

  async changedPaths(): Promise<Array<{ kind: "A" | "C" | "D"; path: string }> | null> {
    const r = await docker(["diff", this.c.id], { env: this.env, maxOutputBytes: 64 * 1024 * 1024 });
    if (r.exitCode !== 0 || r.stdoutBytes > 64 * 1024 * 1024) return null;
    return r.stdout
      .split("\n")
      .map((line) => /^([ACD]) (\/.*)$/.exec(line))
      .filter((m): m is RegExpExecArray => m !== null)
      .map((m) => ({ kind: m[1] as "A" | "C" | "D", path: m[2]! }));
  }

  async readFileOutside(path: string, maxBytes: number): Promise<Buffer | null> {
    // `docker cp` to a host directory: the engine reads the container's file system, no program of it runs.
    const dir = await mkdtemp(join(tmpdir(), "a2a-env-out-"));
    try {
      const target = join(dir, "file");
      const r = await docker(["cp", `${this.c.id}:${path}`, target], {
        env: this.env,
        timeoutMs: READ_FILE_TIMEOUT_MS,
      });
      if (r.exitCode !== 0) {
        if (/no such file|not found|could not find/i.test(r.stderr)) return null;
        throw new SandboxError("E_SANDBOX_UNAVAILABLE", cliFailure(`copying ${path} out`, r));
      }
      const info = await lstat(target);
      if (!info.isFile() || info.size > maxBytes) return null;
      return await readFile(target);
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  }

  async copyInOutside(hostDir: string, target: string): Promise<void> {
    const r = await docker(["cp", `${hostDir}/.`, `${this.c.id}:${target}`], {
      env: this.env,
      timeoutMs: READ_FILE_TIMEOUT_MS,
    });
    if (r.exitCode !== 0) throw new SandboxError("E_SANDBOX_UNAVAILABLE", cliFailure(`copying into ${target}`, r));
  }

  close(): Promise<void> {
    this.ended ??= "the environment is closed";
    this.onClose(this);
    return this.c.remove();
  }
}

/** Container settings of an environment (exported for tests). */
export function environmentContainer(image: string, owner: string, limits: SandboxLimits, network?: string) {
  return {
    image,
    ...(network !== undefined ? { network } : {}),
    owner,
    readOnlyRoot: false,
    tmpfs: [`/tmp:rw,nosuid,nodev,size=${TMPFS_BYTES},mode=1777`],
    memoryBytes: limits.memoryBytes,
    // No one file past the disk limit (RLIMIT_FSIZE: the write fails at once); the layer's sum is watched.
    fileSizeBytes: limits.diskBytes ?? ENVIRONMENT_DISK_BYTES,
    pids: limits.maxProcesses + PIDS_SLACK,
    cpus: limits.cpus ?? 1,
  };
}

/** Create and start an environment's container; rejects with SandboxError E_SANDBOX_UNAVAILABLE (nothing left behind). */
export async function openDockerEnvironment(
  spec: EnvironmentSpec & { limits: SandboxLimits },
  env: NodeJS.ProcessEnv,
  opts: { signal?: AbortSignal; onClose?: (e: Environment) => void } = {},
): Promise<Environment> {
  if ((spec.image === undefined || spec.image === "") && spec.prepare === undefined)
    throw new SandboxError("E_SANDBOX_OPTIONS", "a docker environment starts from an image: spec.image is required");
  if (spec.tree !== undefined)
    throw new SandboxError("E_SANDBOX_OPTIONS", "a docker environment starts from its image; spec.tree is not offered");
  // The host's own network would put the harness's loopback ports in reach: never offered.
  if (spec.network !== undefined && (!/^[A-Za-z0-9][A-Za-z0-9_.-]*$/.test(spec.network) || spec.network === "host"))
    throw new SandboxError("E_SANDBOX_OPTIONS", `spec.network: "${spec.network}" is not an engine network offered`);
  if (opts.signal?.aborted) throw new SandboxError("E_SANDBOX_UNAVAILABLE", "canceled before the environment started");
  // The image is built or found on this very engine when the caller asks (a pool's engine, chosen by now).
  const image = spec.prepare
    ? await spec.prepare({ engine: env["DOCKER_HOST"] || "default", env }, opts.signal)
    : spec.image!;
  const staging = await mkdtemp(join(tmpdir(), "a2a-env-"));
  try {
    for (const [name, text] of Object.entries(spec.files?.entries ?? {})) {
      if (name.includes("/") || name === "." || name === "..")
        throw new SandboxError("E_SANDBOX_OPTIONS", `environment files: a plain file name is needed, got ${name}`);
      await writeFile(join(staging, name), text);
    }
    const name = `a2a-bench-env-${process.pid}-${randomBytes(6).toString("hex")}`;
    const c = await KeepaliveContainer.start(
      {
        ...environmentContainer(image, spec.owner, spec.limits, spec.network),
        ...(spec.files ? { copyIn: { hostDir: staging, target: spec.files.dir } } : {}),
      },
      name,
      env,
    );
    // An abort during the start (create, copy, start: seconds on a busy engine) is honoured here, not by
    // killing a CLI call halfway (a killed `docker create` may still create the container).
    if (opts.signal?.aborted) {
      await c.remove();
      throw new SandboxError("E_SANDBOX_UNAVAILABLE", "canceled while the environment started");
    }
    return new DockerEnvironment(
      c,
      env,
      opts.onClose ?? (() => undefined),
      spec.limits.diskBytes ?? ENVIRONMENT_DISK_BYTES,
    );
  } finally {
    await rm(staging, { recursive: true, force: true });
  }
}
