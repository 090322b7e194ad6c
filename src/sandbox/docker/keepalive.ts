/**
 * A container tied to its owner's life. Its main process prints a ready line
 * and reads stdin to its end (lines written into it from inside change nothing); stdin is a pipe from this process, held through
 * an attached `docker start -ai` client (`-i` makes the container's stdin
 * close when its one attached client goes). When the owner dies — even by
 * SIGKILL — the pipe closes, the main process exits, the kernel kills every
 * other process in the container's pid namespace, and `--rm` makes the engine
 * delete the container. No timer, no sweep needed for the common case; the
 * reaper (reaper.ts) handles the rest.
 */
import { startChild, type ChildHandle } from "../../process/index.js";
import { docker, dockerBinary, cliFailure } from "./docker-cli.js";
import { ownerLabelArgs } from "./owner.js";
import { SandboxError } from "../errors.js";

/** Printed by the main process once it runs (the container is started and attached). */
const READY_LINE = "a2a-bench-keepalive-ready";
/** How long `docker start` may take to show the ready line, ms (first start of a large image on a busy host). */
export const START_TIMEOUT_MS = 60_000;
/** After `docker rm -f`, how often and how long to check the container is gone (ms; 10 s in all). */
const REMOVE_POLL_MS = 50;
const REMOVE_POLLS = 200;

export interface ContainerSpec {
  image: string;
  /** Free-form owner name for the `a2a-bench.owner` label. */
  owner: string;
  /** `uid:gid` of the main process (and default of execs); omit for the image's user. */
  user?: string;
  /** Read-only root file system (writable tmpfs mounts in `tmpfs`). */
  readOnlyRoot: boolean;
  /** tmpfs mounts, `path[:options]` as `--tmpfs` takes them. */
  tmpfs: string[];
  memoryBytes: number;
  /** RLIMIT_FSIZE of every process in it, bytes (`--ulimit fsize`); omit for the engine's default. */
  fileSizeBytes?: number;
  pids: number;
  /** CPU share (`--cpus`). */
  cpus: number;
  /** Engine network to join (`--network NAME`); absent: none. */
  network?: string;
  /** Files to place in the container before it starts: a host directory copied to `target` (a path on a writable layer). */
  copyIn?: { hostDir: string; target: string };
}

/** `docker create` arguments for a spec (exported for tests). */
export function createArgs(spec: ContainerSpec, name: string): string[] {
  return [
    // Never pull: images come from `docker build` / `docker load` (no registry is assumed reachable).
    "create",
    "-i",
    "--rm",
    "--pull",
    "never",
    "--name",
    name,
    ...ownerLabelArgs(spec.owner),
    "--network",
    spec.network ?? "none",
    "--cap-drop",
    "ALL",
    "--security-opt",
    "no-new-privileges",
    "--memory",
    String(spec.memoryBytes),
    "--memory-swap",
    String(spec.memoryBytes),
    "--pids-limit",
    String(spec.pids),
    ...(spec.fileSizeBytes !== undefined ? ["--ulimit", `fsize=${spec.fileSizeBytes}`] : []),
    "--cpus",
    String(spec.cpus),
    ...(spec.user ? ["--user", spec.user] : []),
    ...(spec.readOnlyRoot ? ["--read-only"] : []),
    ...spec.tmpfs.flatMap((t) => ["--tmpfs", t]),
    // The main process is PID 1 itself (no --init): the kernel delivers no signal to a namespace's init
    // from inside it unless init handles it, so not even `kill -9 -1` as root in the container ends the
    // container under a running exec. bash reaps every child on SIGCHLD (waitpid(-1)), so the processes
    // a killed job orphans do not linger as zombies counted against the pids limit.
    "--entrypoint",
    "/bin/bash",
    spec.image,
    "-c",
    // Reads to the end of stdin, never one line: a process inside can open /proc/1/fd/0 (the pipe) and write
    // to it, which must not end the container under the harness; only the lifeline's close does.
    `echo ${READY_LINE}; while read -r _; do :; done`,
  ];
}

export class KeepaliveContainer {
  private removed: Promise<void> | null = null;
  private constructor(
    readonly id: string,
    readonly name: string,
    private readonly client: ChildHandle,
    private readonly env: NodeJS.ProcessEnv,
  ) {}

  /** Create, fill (copyIn) and start a container; rejects with SandboxError E_SANDBOX_UNAVAILABLE (nothing left behind). */
  static async start(spec: ContainerSpec, name: string, env: NodeJS.ProcessEnv): Promise<KeepaliveContainer> {
    const created = await docker(createArgs(spec, name), { env });
    if (created.exitCode !== 0) {
      const missing = /No such image|image not known|not found/i.test(created.stderr)
        ? ` (the image must be in engine ${created.engine}: build it there, or pull/load it where a registry is reachable; is DOCKER_HOST the engine you meant?)`
        : "";
      throw new SandboxError(
        "E_SANDBOX_UNAVAILABLE",
        cliFailure(`creating a container from ${spec.image}`, created) + missing,
      );
    }
    const id = created.stdout.trim();
    const fail = async (why: string): Promise<never> => {
      await docker(["rm", "-f", "-v", id], { env });
      throw new SandboxError("E_SANDBOX_UNAVAILABLE", why);
    };
    if (spec.copyIn) {
      const cp = await docker(["cp", `${spec.copyIn.hostDir}/.`, `${id}:${spec.copyIn.target}`], { env });
      if (cp.exitCode !== 0) await fail(cliFailure("copying files into the container", cp));
    }
    // The lifeline: a pipe we never write. It closes when we die, even by SIGKILL, and so does the container's stdin.
    let onReady: () => void = () => undefined;
    const readySeen = new Promise<null>((resolve) => (onReady = () => resolve(null)));
    const client = startChild({
      file: dockerBinary(env),
      args: ["start", "-a", "-i", id],
      env,
      stdin: "lifeline",
      stdout: {
        lines: (l) => {
          if (l.includes(READY_LINE)) onReady();
        },
      },
      stderr: { tail: 2000 },
      leftovers: "kill-after-close",
    });
    let timer: NodeJS.Timeout | undefined;
    const ready = await Promise.race([
      readySeen,
      new Promise<string>((resolve) => {
        timer = setTimeout(() => resolve(`no ready line within ${START_TIMEOUT_MS} ms`), START_TIMEOUT_MS);
      }),
      client.done.then((o) => o.spawnError ?? `docker start exited ${o.exitCode ?? o.signal}: ${o.stderr.trim()}`),
    ]);
    clearTimeout(timer);
    if (ready !== null) {
      await client.terminate("shutdown", 0);
      await fail(`starting the container from ${spec.image}: ${ready}`);
    }
    return new KeepaliveContainer(id, name, client, env);
  }

  /** Whether the attached client (and so the container's main process) still runs. */
  get alive(): boolean {
    return this.client.running;
  }

  /** Kill and delete the container (idempotent; resolves once the engine no longer lists it). */
  remove(): Promise<void> {
    this.removed ??= (async () => {
      this.client.stdin?.end();
      const rm = await docker(["rm", "-f", "-v", this.id], { env: this.env });
      // "No such container" / "already in progress": --rm got there first.
      if (rm.exitCode !== 0 && !/No such container|already in progress/i.test(rm.stderr)) {
        throw new SandboxError("E_SANDBOX_UNAVAILABLE", cliFailure(`removing container ${this.id.slice(0, 12)}`, rm));
      }
      if (this.alive) void this.client.terminate("shutdown", 0);
      // `--rm` may be deleting it as we speak ("already in progress"): wait until the engine no longer lists it.
      for (let i = 0; i < REMOVE_POLLS; i++) {
        const ls = await docker(["ps", "-aq", "--no-trunc", "--filter", `id=${this.id}`], { env: this.env });
        if (ls.exitCode === 0 && ls.stdout.trim() === "") return;
        await new Promise((r) => setTimeout(r, REMOVE_POLL_MS));
      }
      throw new SandboxError(
        "E_SANDBOX_UNAVAILABLE",
        `container ${this.id.slice(0, 12)} still listed ${(REMOVE_POLLS * REMOVE_POLL_MS) / 1000} s after its removal`,
      );
    })();
    return this.removed;
  }
}
