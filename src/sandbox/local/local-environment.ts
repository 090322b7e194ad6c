/**
 * The local backend's `environments` capability (../environment.ts), offered
 * at bwrap isolation only (local-capabilities.ts): ONE long-lived bubblewrap
 * per environment, holding a resident server (env-server-program.ts) that
 * forks each command. A command costs a fork and an exec, and what it leaves
 * (files, a background process) is there for the next one.
 *
 * What an environment is: a fresh host directory of its own (mode 0700,
 * owned by the environment's uid on a root host), holding a COPY of
 * `spec.tree.host` when given, seen inside at `spec.tree.dir` (else
 * {@link DEFAULT_ENV_DIR}); it is the working directory and, with a private
 * tmpfs /tmp (/var/tmp, /dev/shm), the only writable place. Around it the
 * sandbox's allowlisted host view (host-view.ts), read-only, with the run's
 * hidden paths masked; its own network (none), PID, IPC and UTS namespaces;
 * every capability dropped and no_new_privs; a non-root uid (on a root host a
 * uid of its own, {@link ENV_UID_BASE} up, so the process cap counts this
 * environment alone and no other environment's files are its own); rlimits
 * per command (env-server-program.ts). `spec.image` is refused: nothing here
 * pulls or unpacks images (capability `images`).
 *
 * Ending: a command's timeout or abort, a readFile that does not end, or
 * close() kills the bwrap's process group; the server is PID 1 of the
 * namespace, so its death takes every process of the environment with it.
 * Our own death (even SIGKILL) closes the server's stdin and it leaves; the
 * process layer kills the group when we exit. close() is idempotent and
 * removes the directory.
 */
import { chmod, mkdir, mkdtemp } from "node:fs/promises";
import { tmpdir } from "node:os";
import { isAbsolute, join, normalize } from "node:path";
import { randomInt } from "node:crypto";
import { createInterface } from "node:readline";
import { startChild, runCommand, succeeded, describeOutcome, type ChildHandle } from "../../process/index.js";
import type { Logger } from "../../util/logger.js";
import type { SandboxLimits } from "../types.js";
import { SandboxError } from "../errors.js";
import { ENVIRONMENT_DISK_BYTES, TMPFS_INODES } from "../limits.js";
import { DiskLimit, type DiskMeasure } from "../disk-limit.js";
import {
  ENVIRONMENT_OUTPUT_BYTES,
  type Environment,
  type EnvironmentExecOptions,
  type EnvironmentExecOutcome,
  type EnvironmentSpec,
} from "../environment.js";
import { ENV_SERVER_PROGRAM } from "./env-server-program.js";
import { baseEnv, buildLaunchCommand } from "./launch-command.js";
import { readHostView, within } from "./host-view.js";
import { runtimeTrees, type HostTools } from "./probe.js";
import { lendTree } from "./lend-tree.js";
import { removeTree } from "../remove-tree.js";

/** Where the environment's tree is seen when the spec names no tree. */
export const DEFAULT_ENV_DIR = "/env";
/** First uid of the per-environment uids on a root host (apart from the fork server's slot uids). */
export const ENV_UID_BASE = 1_800_000_000;
/** Span of the uids drawn from (random, so two runs on one host hardly ever share one). */
const ENV_UID_SPAN = 1 << 24;
/** Processes beyond the per-program limit (the shell wrapper, `timeout`, git): docker's slack. */
const PIDS_SLACK = 32;
/** Largest file a command may write (RLIMIT_FSIZE), bytes. */
export const ENV_FILE_BYTES = 1024 * 1024 * 1024;
/** Limit of one measurement (du over a large tree), ms. */
const DISK_MEASURE_TIMEOUT_MS = 30_000;

/**
 * Bytes of the tree on the host's disk (blocks in use: a sparse file costs what it holds). A part of the tree
 * du may not read ("Permission denied": the participant's `chmod 000`, which on a host that is not root leaves
 * our own uid outside) is the participant keeping its disk from being measured; a file vanishing during the
 * walk is ordinary churn and ignored; a du that printed no total decides nothing.
 */
export async function measureTree(tree: string): Promise<DiskMeasure> {
  const o = await runCommand("du", ["-sx", "-B1", "--", tree], { timeoutMs: DISK_MEASURE_TIMEOUT_MS });
  return duMeasure(o.stdout, o.stderr);
}

/** What du printed, read as a measurement (pure: see {@link measureTree}). */
export function duMeasure(stdout: string, stderr: string): DiskMeasure {
  const denied = stderr.split("\n").find((l) => /Permission denied/i.test(l));
  if (denied !== undefined) return { hidden: denied.trim().slice(0, 300) };
  const bytes = Number(/^(\d+)/.exec(stdout)?.[1] ?? NaN);
  return Number.isFinite(bytes) ? bytes : undefined;
}
/** Bytes of a file readFile returns at most (beyond it: an error, never a cut file); docker's. */
export const LOCAL_READ_FILE_MAX_BYTES = 16 * 1024 * 1024;
/** Limit of one readFile or writeFile, ms; past it the environment ends. */
export const FILE_OP_TIMEOUT_MS = 30_000;
/** Limit of the server's start, ms (a bwrap start takes milliseconds; a loaded host seconds). */
const START_TIMEOUT_MS = 30_000;
/** Bytes of the server's own stderr kept for the message of its death. */
const SERVER_STDERR_BYTES = 4_000;
/** Limit of the copy of `spec.tree` and of the chown, ms. */
const COPY_TIMEOUT_MS = 300_000;
/** Inside paths an environment's tree may not take (the system the host view shows, the kernel's). */
const RESERVED = ["/usr", "/bin", "/sbin", "/lib", "/lib32", "/lib64", "/libx32", "/etc", "/proc", "/dev", "/sys"];

/** What opening a local environment needs of its sandbox. */
export interface LocalEnvironmentHost {
  tools: HostTools;
  /** Host paths masked should the host view show them. */
  hidden: readonly string[];
  limits: SandboxLimits;
  logger: Logger;
}

/** A reply line of the server. */
interface Reply {
  id: number;
  exitCode?: number | null;
  signal?: string | null;
  output?: string;
  /** stderr alone, when the request kept the streams apart. */
  stderr?: string;
  durationMs?: number;
  data?: string;
  ok?: boolean;
  error?: string;
}

const usedUids = new Set<number>();
function drawUid(): number {
  for (;;) {
    const uid = ENV_UID_BASE + randomInt(ENV_UID_SPAN);
    if (!usedUids.has(uid)) {
      usedUids.add(uid);
      return uid;
    }
  }
}

/** The environment's working path, checked (an E_SANDBOX_OPTIONS message) . */
function workPath(spec: EnvironmentSpec): string {
  const dir = spec.tree?.dir ?? DEFAULT_ENV_DIR;
  if (!isAbsolute(dir) || normalize(dir) !== dir || dir === "/" || dir.endsWith("/"))
    throw new SandboxError(
      "E_SANDBOX_OPTIONS",
      `environment tree: an absolute, normalized directory is needed, got ${dir}`,
    );
  const reserved = RESERVED.find((r) => within(dir, r) || within(r, dir));
  if (reserved !== undefined)
    throw new SandboxError(
      "E_SANDBOX_OPTIONS",
      `environment tree: ${dir} would cover or lie in the system's ${reserved}`,
    );
  return dir;
}

class LocalEnvironment implements Environment {
  /** The server gives each stream its own pipe on request (env-server-program.ts). */
  readonly separateStreams = true;
  private ended: string | null = null;
  /**
   * Set when the environment was ended for what its commands did (a command, or a process it left, kept the
   * command from ending within its limit: `kill -STOP -1` stops the wrapper): later calls report it as the
   * participant's broken limit, never as the backend's failure.
   */
  private endedByCommands: string | null = null;
  private readonly pending = new Map<number, (r: Reply | null) => void>();
  private nextId = 1;
  private closing: Promise<void> | null = null;
  private readonly disk: DiskLimit;

  constructor(
    readonly id: string,
    private readonly server: ChildHandle,
    private readonly root: string,
    private readonly workdir: string,
    private readonly env: Record<string, string>,
    private readonly onClose: (e: Environment) => void,
    private readonly logger: Logger,
    diskBytes: number = ENVIRONMENT_DISK_BYTES,
  ) {
    // The tree on the host's disk: past diskBytes the participant's failure, the environment ended. Its private
    // /tmp is a tmpfs, charged to memory, not to this disk.
    this.disk = new DiskLimit(diskBytes, {
      measure: () => measureTree(join(root, "tree")),
      end: (why) => this.end(why),
      ended: () => this.ended !== null,
    });
    const stdout = server.child?.stdout;
    if (stdout)
      createInterface({ input: stdout }).on("line", (line) => {
        let msg: Reply;
        try {
          msg = JSON.parse(line) as Reply;
        } catch {
          return;
        }
        const p = this.pending.get(msg.id);
        if (p === undefined) return;
        this.pending.delete(msg.id);
        p(msg);
      });
    void server.done.then((o) => {
      this.ended ??= `the environment's server exited (code ${o.exitCode}, signal ${o.signal})${o.stderr.trim() ? `: ${o.stderr.trim().slice(-500)}` : ""}`;
      for (const [id, p] of [...this.pending]) {
        this.pending.delete(id);
        p(null);
      }
    });
  }

  /** Send one request; resolves with its reply, or null when the server went away first. */
  private request(msg: Record<string, unknown>): { id: number; reply: Promise<Reply | null> } {
    const id = this.nextId++;
    const reply = new Promise<Reply | null>((resolve) => this.pending.set(id, resolve));
    const stdin = this.server.stdin;
    if (stdin === null || this.ended !== null) {
      this.pending.delete(id);
      return { id, reply: Promise.resolve(null) };
    }
    stdin.write(JSON.stringify({ ...msg, id }) + "\n");
    return { id, reply };
  }

  /** End the environment: kill the bwrap's group (the server is PID 1: everything inside dies with it). */
  private end(why: string): Promise<void> {
    this.ended ??= why;
    void this.server.terminate("shutdown", 0);
    return this.server.done.then(() => undefined);
  }

  /** The limit the participant broke: a command it held past its limit (the environment ended), else its disk. */
  async limitProblem(): Promise<string | null> {
    return this.endedByCommands ?? this.disk.problem();
  }

  exec(argv: readonly string[], o: EnvironmentExecOptions): Promise<EnvironmentExecOutcome> {
    return this.disk.around(o, () => this.execOnce(argv, o));
  }

  private async execOnce(argv: readonly string[], o: EnvironmentExecOptions): Promise<EnvironmentExecOutcome> {
    const t0 = performance.now();
    const separate = o.streams === "separate";
    const none = {
      output: "",
      ...(separate ? { stderr: "" } : {}),
      exitCode: null,
      timedOut: false,
      isCanceled: false,
    };
    if (o.signal?.aborted) return { ...none, isCanceled: true, durationMs: 0 };
    if (this.endedByCommands !== null) return { ...none, durationMs: 0, limitExceeded: this.endedByCommands };
    if (this.ended !== null) return { ...none, durationMs: 0, infraError: this.ended };
    if (argv.length === 0) return { ...none, durationMs: 0, infraError: "exec: an empty argv" };
    const { reply } = this.request({
      op: "exec",
      argv,
      cwd: this.workdir,
      env: this.env,
      maxOutputBytes: o.maxOutputBytes ?? ENVIRONMENT_OUTPUT_BYTES,
      separate,
    });
    let stopped: "timeout" | "cancel" | null = null;
    const stop = (why: "timeout" | "cancel"): void => {
      stopped ??= why;
      if (why === "timeout" && this.ended === null)
        this.endedByCommands ??= `time limit: a command did not end within ${Math.round(o.timeoutMs / 1000)} s (a process of the environment stopped or held it), so the environment was ended`;
      void this.end(`the environment ended after a command's ${why === "timeout" ? "timeout" : "cancellation"}`);
    };
    const timer = setTimeout(() => stop("timeout"), o.timeoutMs);
    const onAbort = (): void => stop("cancel");
    o.signal?.addEventListener("abort", onAbort, { once: true });
    try {
      const r = await reply;
      const durationMs = performance.now() - t0;
      if (stopped !== null)
        return { ...none, timedOut: stopped === "timeout", isCanceled: stopped === "cancel", durationMs };
      if (r === null) return { ...none, durationMs, infraError: this.ended ?? "the environment's server is gone" };
      return {
        output: r.output ?? "",
        ...(separate ? { stderr: r.stderr ?? "" } : {}),
        exitCode: r.exitCode ?? null,
        timedOut: false,
        isCanceled: false,
        durationMs: r.durationMs ?? durationMs,
      };
    } finally {
      clearTimeout(timer);
      o.signal?.removeEventListener("abort", onAbort);
    }
  }

  /** A file operation bounded in time: past the limit the environment ends (the file is the code's). */
  private async fileOp(what: string, msg: Record<string, unknown>): Promise<Reply> {
    if (this.endedByCommands !== null) throw new SandboxError("E_SANDBOX_SETUP", `${what}: ${this.endedByCommands}`);
    if (this.ended !== null) throw new SandboxError("E_SANDBOX_CLOSED", `${what}: ${this.ended}`);
    const { reply } = this.request(msg);
    let timer: NodeJS.Timeout | undefined;
    const late = new Promise<"late">((resolve) => {
      timer = setTimeout(() => resolve("late"), FILE_OP_TIMEOUT_MS);
    });
    try {
      const r = await Promise.race([reply, late]);
      if (r === "late") {
        await this.end(`${what} had no end within ${FILE_OP_TIMEOUT_MS / 1000} s`);
        throw new SandboxError("E_SANDBOX_SETUP", `${what}: no end within ${FILE_OP_TIMEOUT_MS / 1000} s`);
      }
      if (r === null) throw new SandboxError("E_SANDBOX_CLOSED", `${what}: ${this.ended ?? "the environment is gone"}`);
      if (r.error !== undefined) throw new SandboxError("E_SANDBOX_SETUP", `${what}: ${r.error}`);
      return r;
    } finally {
      clearTimeout(timer);
    }
  }

  async readFile(path: string): Promise<string> {
    const r = await this.fileOp(`reading ${path}`, { op: "read", path, max: LOCAL_READ_FILE_MAX_BYTES });
    return Buffer.from(r.data ?? "", "base64").toString("utf8");
  }

  async writeFile(path: string, content: string): Promise<void> {
    await this.fileOp(`writing ${path}`, { op: "write", path, data: Buffer.from(content, "utf8").toString("base64") });
  }

  backendProblem(): Promise<string | null> {
    // Nothing stands between us and the server but its pipe: when it is gone, that is why, unless the
    // participant's commands are why (a command held past its limit ended the environment): the backend is sound.
    if (this.server.running || this.endedByCommands !== null) return Promise.resolve(null);
    return Promise.resolve(this.ended ?? "the environment's server is gone");
  }

  close(): Promise<void> {
    this.closing ??= (async () => {
      this.onClose(this);
      await this.end("the environment is closed");
      await removeEnvironmentTree(this.root, this.logger);
    })();
    return this.closing;
  }
}

/**
 * Remove an environment's directory whatever its commands left there (remove-tree.ts); a tree that stays is
 * said loudly (logged with its code) and never turns into a failure of the episode, whose verdict is judged.
 */
async function removeEnvironmentTree(root: string, logger: Logger): Promise<void> {
  try {
    await removeTree(root);
  } catch (e) {
    logger.error(
      { code: (e as { code?: string }).code, err: (e as Error).message, tree: root },
      "an environment's tree could not be removed",
    );
  }
}

/** The spec's working directory, after refusing what a local environment does not take (nothing is created yet). */
function checkedWorkdir(spec: EnvironmentSpec): string {
  if (spec.image !== undefined)
    throw new SandboxError(
      "E_SANDBOX_OPTIONS",
      "a local environment starts from this host's system and spec.tree, not an image (capability 'images': sandbox: docker)",
    );
  for (const name of Object.keys(spec.files?.entries ?? {}))
    if (name.includes("/") || name === "." || name === ".." || name === "")
      throw new SandboxError("E_SANDBOX_OPTIONS", `environment files: a plain file name is needed, got ${name}`);
  if (spec.files !== undefined && (!isAbsolute(spec.files.dir) || normalize(spec.files.dir) !== spec.files.dir))
    throw new SandboxError(
      "E_SANDBOX_OPTIONS",
      `environment files: an absolute directory is needed, got ${spec.files.dir}`,
    );
  return workPath(spec);
}

/** The environment's tree under `root`: a copy of the spec's host tree, or empty. */
async function prepareTree(spec: EnvironmentSpec, root: string): Promise<string> {
  const tree = join(root, "tree");
  if (spec.tree?.host !== undefined) {
    // -a keeps links as links and modes; it never follows a link out of the source tree.
    const o = await runCommand("cp", ["-a", "--", `${spec.tree.host}/.`, tree], { timeoutMs: COPY_TIMEOUT_MS });
    if (!succeeded(o))
      throw new SandboxError(
        "E_SANDBOX_UNAVAILABLE",
        `copying ${spec.tree.host}: ${o.stderr.trim() || describeOutcome(o)}`,
      );
  } else await mkdir(tree);
  return tree;
}

/** The environment server's argv, with the per-command limits it applies. */
function serverProgram(python: string, limits: SandboxLimits): string[] {
  const perCommand = {
    memoryBytes: limits.memoryBytes,
    maxProcesses: limits.maxProcesses + PIDS_SLACK,
    cpuSeconds: limits.cpuSeconds,
    fileBytes: ENV_FILE_BYTES,
  };
  // -S: the server is our own standard-library code; the commands it starts are bash, not this interpreter.
  return [python, "-I", "-S", "-B", "-c", ENV_SERVER_PROGRAM, JSON.stringify(perCommand)];
}

/** Open one local environment; rejects with SandboxError (nothing left behind). */
export async function openLocalEnvironment(
  spec: EnvironmentSpec,
  host: LocalEnvironmentHost,
  opts: { signal?: AbortSignal; onClose?: (e: Environment) => void } = {},
): Promise<Environment> {
  const workdir = checkedWorkdir(spec);
  if (opts.signal?.aborted) throw new SandboxError("E_SANDBOX_UNAVAILABLE", "canceled before the environment started");
  const [tools, limits] = [host.tools, spec.limits ?? host.limits];
  const root = await mkdtemp(join(tmpdir(), "a2a-env-"));
  let server: ChildHandle | null = null;
  try {
    await chmod(root, 0o700);
    const tree = await prepareTree(spec, root);
    const uid = tools.isRoot ? drawUid() : undefined;
    if (uid !== undefined) await lendTree(tree, uid, uid);
    else await chmod(tree, 0o755);
    const command = buildLaunchCommand({
      level: "bwrap",
      tools,
      limits: null,
      asRoot: false,
      program: serverProgram(tools.python, limits),
      cwd: workdir,
      mounts: [{ host: tree, target: workdir, writable: true }],
      view: readHostView(runtimeTrees(tools), host.hidden),
      asPid1: true,
      tmpfsInodes: TMPFS_INODES,
      ...(uid !== undefined ? { uid } : {}),
    });
    const s = startChild({
      file: command.file,
      args: command.args,
      cwd: command.spawnCwd,
      env: baseEnv(tools, "/tmp", undefined),
      stdin: "pipe",
      stdout: "pipe",
      stderr: { tail: SERVER_STDERR_BYTES },
      leftovers: "kill-after-close",
    });
    server = s;
    await waitReady(s, opts.signal);
    const e = new LocalEnvironment(
      `local-env-${s.pid ?? "?"}`,
      s,
      root,
      workdir,
      baseEnv(tools, "/tmp", undefined),
      opts.onClose ?? (() => undefined),
      host.logger,
      limits.diskBytes ?? ENVIRONMENT_DISK_BYTES,
    );
    for (const [name, text] of Object.entries(spec.files?.entries ?? {})) {
      try {
        await e.writeFile(`${spec.files!.dir}/${name}`, text);
      } catch (err) {
        await e.close();
        throw new SandboxError("E_SANDBOX_UNAVAILABLE", `placing the environment's files: ${(err as Error).message}`);
      }
    }
    return e;
  } catch (err) {
    if (server !== null) {
      void server.terminate("shutdown", 0);
      await server.done;
    }
    await removeEnvironmentTree(root, host.logger);
    if (err instanceof SandboxError) throw err;
    throw new SandboxError("E_SANDBOX_UNAVAILABLE", `opening a local environment: ${(err as Error).message}`);
  }
}

/** Resolve once the server says it is ready; reject when it dies, the start takes too long, or `signal` aborts. */
function waitReady(s: ChildHandle, signal: AbortSignal | undefined): Promise<void> {
  return new Promise<void>((resolve, reject) => {
    const stdout = s.child?.stdout;
    if (!stdout) return reject(new Error("the environment's server has no stdout"));
    let settled = false;
    const done = (err?: Error): void => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      signal?.removeEventListener("abort", onAbort);
      stdout.off("data", onData);
      if (err) reject(err);
      else resolve();
    };
    let seen = "";
    const onData = (b: Buffer): void => {
      seen += b.toString("utf8");
      if (seen.startsWith('{"ready": true}\n')) done();
      else if (seen.length > 64) done(new Error(`the environment's server said ${JSON.stringify(seen.slice(0, 64))}`));
    };
    const onAbort = (): void =>
      done(new SandboxError("E_SANDBOX_UNAVAILABLE", "canceled while the environment started"));
    const timer = setTimeout(
      () => done(new Error(`no ready line within ${START_TIMEOUT_MS / 1000} s`)),
      START_TIMEOUT_MS,
    );
    timer.unref();
    stdout.on("data", onData);
    signal?.addEventListener("abort", onAbort, { once: true });
    void s.done.then((o) =>
      done(
        new Error(
          `the environment's server exited at its start (code ${o.exitCode}, signal ${o.signal}): ${(o.spawnError ?? o.stderr).trim().slice(-500)}`,
        ),
      ),
    );
  });
}
