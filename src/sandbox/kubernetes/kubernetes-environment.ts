/**
 * The kubernetes backend's `environments` capability (../environment.ts): one pod per environment,
 * from the spec's image, in the assessment's namespace behind its deny-all NetworkPolicy, with the
 * platform's own end (`activeDeadlineSeconds`) at the spec's `lifetimeMs`: if this process dies, the
 * kubelet ends the pod then, and the namespace's deletion takes the rest.
 *
 * - the spec's files go in before the first command, each one exec of `sh -c 'cat > "$1"'` with the
 *   path as an argument and the content on stdin (never on a command line);
 * - exec(argv) is one exec of argv itself (no shell unless argv names one), in the pod's working
 *   directory (the files' directory); stdout and stderr interleaved, or apart on request;
 * - a command's timeout or its caller's abort deletes the pod (the command would run on after our
 *   socket closed): the environment ends, later calls report `infraError`;
 * - readFile is `timeout 30 head -c <cap+1> -- path` (a link to /dev/zero or a FIFO ends there): a file
 *   larger than the cap is an error, never a cut file; writeFile as the spec's files;
 * - backendProblem() asks the API server for the pod (a command cannot stop the API server);
 * - close() deletes the pod; the sandbox's close() deletes everything of the assessment by label.
 */
import { posix } from "node:path";
import { randomBytes } from "node:crypto";
import { SandboxError } from "../errors.js";
import type { Logger } from "../../util/logger.js";
import type { SandboxLimits } from "../types.js";
import {
  ENVIRONMENT_OUTPUT_BYTES,
  type Environment,
  type EnvironmentExecOptions,
  type EnvironmentExecOutcome,
  type EnvironmentSpec,
} from "../environment.js";
import type { KubeCluster } from "./cluster.js";
import { ENVIRONMENT_UID, podManifest, type EnvironmentUser } from "./manifests.js";
import { podExec, type PodExecResult } from "./pod-exec.js";

/** Bytes of a file readFile returns at most (beyond it: an error, never a cut file); docker's figure. */
export const READ_FILE_MAX_BYTES = 16 * 1024 * 1024;
/** Limit of one readFile inside the pod, seconds (the file may be a FIFO). */
export const READ_FILE_TIMEOUT_S = 30;
/** Limit of one writeFile or spec file upload, ms. */
export const WRITE_FILE_TIMEOUT_MS = 60_000;
/** Default lifetime of an environment's pod, ms: an episode's default 30 min plus setup and grading. */
export const DEFAULT_ENVIRONMENT_LIFETIME_MS = 3_600_000;
/** Our own limit on a readFile beyond the pod's `timeout`, ms. */
const READ_SLACK_MS = 15_000;

/** What an environment needs of its kubernetes sandbox. */
export interface KubernetesEnvironmentContext {
  cluster: KubeCluster;
  limits: SandboxLimits;
  user: EnvironmentUser;
  imagePullPolicy: "Always" | "IfNotPresent" | "Never";
  logger: Logger;
  /** Caps of readFile (tests lower them). */
  readFileMaxBytes?: number;
}

class KubernetesEnvironment implements Environment {
  readonly separateStreams = true;
  private ended: string | null = null;
  /** The environment ended because of what a command did (not the backend): backendProblem stays null. */
  private endedByCommand = false;
  private deleted: Promise<void> | null = null;

  constructor(
    readonly id: string,
    private readonly ctx: KubernetesEnvironmentContext,
    private readonly lifetimeMs: number,
    private readonly onClose: (e: Environment) => void,
  ) {}

  async exec(argv: readonly string[], o: EnvironmentExecOptions): Promise<EnvironmentExecOutcome> {
    const none = { output: "", exitCode: null, timedOut: false, isCanceled: false, durationMs: 0 };
    if (this.ended !== null) return { ...none, isCanceled: o.signal?.aborted ?? false, infraError: this.ended };
    if (argv.length === 0) return { ...none, infraError: "exec: an empty argv" };
    if (argv.some((w) => w.includes("\0"))) return { ...none, infraError: "exec: an argument holds a NUL byte" };
    const separate = o.streams === "separate";
    const cap = o.maxOutputBytes ?? ENVIRONMENT_OUTPUT_BYTES;
    const r = await podExec(this.ctx.cluster, this.id, {
      argv,
      timeoutMs: o.timeoutMs,
      ...(o.signal ? { signal: o.signal } : {}),
      stdoutBytes: cap,
      stderrBytes: cap,
      interleave: !separate,
      stop: () => this.deletePod(),
    });
    const base = {
      output: r.stdout,
      ...(separate ? { stderr: r.stderr } : {}),
      durationMs: r.durationMs,
    };
    if (r.stopped !== null) {
      this.ended ??= `the environment ended after a command's ${r.stopped === "timeout" ? "timeout" : "cancellation"}`;
      this.endedByCommand = true;
      return { ...base, exitCode: null, timedOut: r.stopped === "timeout", isCanceled: r.stopped === "cancel" };
    }
    if (r.infraError !== undefined) {
      // Whether the command runs on is unknown: the environment is ended.
      this.ended ??= `the environment ended: ${r.infraError}`;
      await this.deletePod();
      return { ...base, exitCode: null, timedOut: false, isCanceled: false, infraError: r.infraError };
    }
    if (r.refused !== undefined) {
      const line = `${r.refused}\n`;
      return {
        ...base,
        ...(separate ? { stderr: (r.stderr + line).slice(-cap) } : { output: (r.stdout + line).slice(-cap) }),
        exitCode: null,
        timedOut: false,
        isCanceled: false,
      };
    }
    return { ...base, exitCode: r.exitCode, timedOut: false, isCanceled: false };
  }

  async readFile(path: string): Promise<string> {
    if (this.ended !== null) throw new SandboxError("E_SANDBOX_CLOSED", `readFile(${path}): ${this.ended}`);
    const cap = this.ctx.readFileMaxBytes ?? READ_FILE_MAX_BYTES;
    const r = await podExec(this.ctx.cluster, this.id, {
      argv: ["timeout", String(READ_FILE_TIMEOUT_S), "head", "-c", String(cap + 1), "--", path],
      timeoutMs: READ_FILE_TIMEOUT_S * 1000 + READ_SLACK_MS,
      stdoutBytes: cap + 1,
      stderrBytes: 4096,
      stop: () => Promise.resolve(),
    });
    if (r.infraError !== undefined) throw new SandboxError("E_SANDBOX_SETUP", `reading ${path}: ${r.infraError}`);
    if (r.stopped !== null || r.exitCode === 124)
      throw new SandboxError("E_SANDBOX_SETUP", `reading ${path}: no end within ${READ_FILE_TIMEOUT_S} s`);
    if (r.stdoutTotal > cap) throw new SandboxError("E_SANDBOX_SETUP", `reading ${path}: larger than ${cap} bytes`);
    if (r.exitCode !== 0)
      throw new SandboxError("E_SANDBOX_SETUP", `reading ${path}: ${(r.refused ?? r.stderr).trim().slice(-300)}`);
    return r.stdout;
  }

  async writeFile(path: string, content: string): Promise<void> {
    if (this.ended !== null) throw new SandboxError("E_SANDBOX_CLOSED", `writeFile(${path}): ${this.ended}`);
    await writeOne(this.ctx.cluster, this.id, path, content);
  }

  async backendProblem(): Promise<string | null> {
    if (this.endedByCommand) return null;
    try {
      const s = await this.ctx.cluster.readPod(this.id);
      if (s === null) return `pod ${this.id} is gone (deleted, or its lifetime of ${this.lifetimeMs / 1000} s ran out)`;
      if (s.phase === "Running") return null;
      return `pod ${this.id} is ${s.phase}${s.reason ? ` (${s.reason})` : ""}, no longer running`;
    } catch (e) {
      return `the API server did not answer: ${(e as Error).message}`;
    }
  }

  close(): Promise<void> {
    this.ended ??= "the environment is closed";
    this.onClose(this);
    return this.deletePod();
  }

  private deletePod(): Promise<void> {
    this.deleted ??= this.ctx.cluster.deletePod(this.id);
    return this.deleted;
  }
}

/** Write one file through exec: the path is an argument, the content stdin; rejects E_SANDBOX_SETUP. */
async function writeOne(cluster: KubeCluster, pod: string, path: string, content: string): Promise<void> {
  const r: PodExecResult = await podExec(cluster, pod, {
    argv: ["sh", "-c", 'mkdir -p -- "$(dirname -- "$1")" && cat > "$1"', "a2a-write", path],
    stdin: content,
    timeoutMs: WRITE_FILE_TIMEOUT_MS,
    stdoutBytes: 4096,
    stderrBytes: 4096,
    stop: () => Promise.resolve(),
  });
  if (r.exitCode === 0) return;
  const why =
    r.infraError ?? r.refused ?? (r.stopped !== null ? "no end within the limit" : r.stderr.trim().slice(-300));
  throw new SandboxError("E_SANDBOX_SETUP", `writing ${path}: ${why}`);
}

/** Create an environment's pod, wait for it, put its files in; rejects E_SANDBOX_UNAVAILABLE (nothing left behind). */
export async function openKubernetesEnvironment(
  spec: EnvironmentSpec,
  ctx: KubernetesEnvironmentContext,
  opts: { signal?: AbortSignal; onClose?: (e: Environment) => void } = {},
): Promise<Environment> {
  if (opts.signal?.aborted) throw new SandboxError("E_SANDBOX_UNAVAILABLE", "canceled before the environment started");
  const entries = Object.entries(spec.files?.entries ?? {});
  for (const [name] of entries)
    if (name.includes("/") || name === "." || name === ".." || name === "" || name.includes("\0"))
      throw new SandboxError("E_SANDBOX_OPTIONS", `environment files: a plain file name is needed, got ${name}`);
  if (spec.files && !posix.isAbsolute(spec.files.dir))
    throw new SandboxError("E_SANDBOX_OPTIONS", `environment files: dir must be absolute, got ${spec.files.dir}`);
  if (spec.tree !== undefined)
    throw new SandboxError(
      "E_SANDBOX_OPTIONS",
      "environment tree: the kubernetes backend starts environments from images only",
    );
  if (spec.image === undefined)
    throw new SandboxError("E_SANDBOX_OPTIONS", "environment image: the kubernetes backend needs an image");
  const lifetimeMs = spec.lifetimeMs ?? DEFAULT_ENVIRONMENT_LIFETIME_MS;
  const name = `a2a-env-${randomBytes(6).toString("hex")}`;
  const cluster = ctx.cluster;
  const pod = podManifest({
    name,
    namespace: cluster.namespace,
    assessment: cluster.assessment,
    role: "environment",
    image: spec.image,
    imagePullPolicy: ctx.imagePullPolicy,
    limits: spec.limits ?? ctx.limits,
    deadlineSeconds: Math.max(1, Math.ceil(lifetimeMs / 1000)),
    uid: ctx.user === "non-root" ? ENVIRONMENT_UID : null,
    ...(spec.files ? { workDir: spec.files.dir } : {}),
    owner: spec.owner,
  });
  try {
    await cluster.createPod(pod);
  } catch (e) {
    throw new SandboxError("E_SANDBOX_UNAVAILABLE", (e as Error).message, { cause: e });
  }
  try {
    await cluster.waitRunning(name, opts.signal);
    for (const [file, text] of entries) await writeOne(cluster, name, posix.join(spec.files!.dir, file), text);
    if (opts.signal?.aborted) throw new SandboxError("E_SANDBOX_UNAVAILABLE", "canceled while the environment started");
  } catch (e) {
    await cluster.deletePod(name);
    if (e instanceof SandboxError && e.code === "E_SANDBOX_UNAVAILABLE") throw e;
    throw new SandboxError("E_SANDBOX_UNAVAILABLE", `setting up pod ${name}: ${(e as Error).message}`, { cause: e });
  }
  return new KubernetesEnvironment(name, ctx, lifetimeMs, opts.onClose ?? (() => undefined));
}
