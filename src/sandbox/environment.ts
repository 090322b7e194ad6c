/**
 * The `environments` capability (capabilities.ts): a session living for one
 * item or episode. It starts from an image (capability `images`: container
 * backends) or from a copy of a host tree (the local backend), runs commands one after another
 * with their state kept on its disk, reads and writes files, and is closed
 * by its owner; Inspect AI's per-sample sandbox environment (init, exec,
 * read_file/write_file, cleanup) is the model. A benchmark asks the run's
 * sandbox for one (`openEnvironment`) and never learns how the backend keeps
 * it (a container, a pod, a remote VM).
 *
 * Contract every backend keeps (docs/sandbox-backends.md):
 * - isolation at least that of the backend's `exec`: no network, no host
 *   files, every Linux capability dropped, the sandbox's limits as cgroup or
 *   equivalent caps; the environment is what `Sandbox.isolation` reports;
 * - `files` of the spec are in place before the first command, never passed
 *   on a command line;
 * - a command's timeout or its caller's abort ENDS the environment (killing
 *   only a client would leave the command running): later calls report an
 *   `infraError` and nothing more runs;
 * - nothing outlives the owner process, even one killed by SIGKILL; close()
 *   is idempotent and resolves once the backend no longer holds it.
 */
import type { Sandbox, SandboxLimits } from "./types.js";
import { requireCapabilities, SandboxCapabilityError } from "./capabilities.js";
import { SandboxError } from "./errors.js";

/** Bytes of a command's output kept by default (the test output of a large suite runs to megabytes). */
export const ENVIRONMENT_OUTPUT_BYTES = 16 * 1024 * 1024;

export interface EnvironmentSpec {
  /**
   * What the environment starts from, for backends with the capability `images` (container backends): an
   * image the engine already holds (never pulled). Required there; refused by a backend without it (the
   * local backend shows the host's allowlisted system read-only instead, and `tree`).
   */
  image?: string;
  /**
   * A host directory COPIED into the environment at `dir` (absolute) before the first command (no `host`:
   * an empty directory); changes never reach `host`. Local backend only (a container backend refuses it); there `dir` is also the
   * environment's working directory, its one writable tree besides a private /tmp.
   */
  tree?: { host?: string; dir: string };
  /** Files in place before the first command: `entries` (name → content) in the directory `dir` (absolute). */
  files?: { dir: string; entries: Readonly<Record<string, string>> };
  /** Owner of the environment (the run id): labels it so a reaper can tell whose it is. */
  owner: string;
  /** Caps of the environment; default the sandbox's own limits. */
  limits?: SandboxLimits;
  /**
   * How long the owner may need it at most, ms (setup, the episode's limit, grading). A backend whose
   * environments live remotely sets it as their own lifetime, the backstop if this process dies (e2b);
   * local ones, tied to this process, ignore it. Default: the backend's.
   */
  lifetimeMs?: number;
  /**
   * The engine network the environment joins (its name, e.g. `bridge`); absent: no network, the contract's
   * default. Only a backend whose environments are containers of an engine honours it (docker, docker-pool);
   * every other backend refuses a spec that names one (E_SANDBOX_OPTIONS), never ignores it.
   */
  network?: string;
  /**
   * Called once the backend has chosen where the environment runs, before its container is created: given
   * that place's engine (its URL and the docker CLI's environment to reach it), it returns the image to
   * start from (one it built or found there), which replaces `image`. Lets a caller build an image on the
   * very engine a pool places the environment on. Only container-engine backends call it (docker,
   * docker-pool); every other backend refuses a spec that has it (E_SANDBOX_OPTIONS). What it throws is
   * rethrown as is, nothing being left behind.
   */
  prepare?: (place: EnginePlace, signal?: AbortSignal) => Promise<string>;
}

/** The container engine an environment is placed on ({@link EnvironmentSpec.prepare}). */
export interface EnginePlace {
  /** The engine's URL (DOCKER_HOST), or "default" for the CLI's own default. */
  engine: string;
  /** The docker CLI's environment that reaches that engine. */
  env: NodeJS.ProcessEnv;
}

export interface EnvironmentExecOptions {
  /** Wall-clock limit, ms; reaching it ends the environment. */
  timeoutMs: number;
  /** Aborting it ends the environment. */
  signal?: AbortSignal;
  /** Bytes of output kept (the tail; of each stream when they are kept apart); default {@link ENVIRONMENT_OUTPUT_BYTES}. */
  maxOutputBytes?: number;
  /**
   * "separate": keep stderr apart in the outcome's `stderr`, `output` being stdout alone. Honoured only by
   * an environment whose `separateStreams` is true; others interleave (the default) and leave `stderr` unset.
   */
  streams?: "interleaved" | "separate";
}

/** Flat outcome of one command in an environment, the same shape on success and failure. */
export interface EnvironmentExecOutcome {
  /**
   * stdout and stderr interleaved as they arrived here (bounded tail): each stream keeps its order, the
   * two only their arrival order; a command that needs exact order merges them itself (`2>&1`).
   */
  output: string;
  /** stderr alone (bounded tail), present exactly when `streams: "separate"` was asked of an environment that keeps them apart. */
  stderr?: string;
  /** Exit code; null when the command was stopped (timeout, abort) or never ran. */
  exitCode: number | null;
  timedOut: boolean;
  isCanceled: boolean;
  durationMs: number;
  /** The backend failed (not the command): its message. */
  infraError?: string;
  /**
   * The environment outgrew a limit that is the participant's to keep (its disk, `limits.diskBytes`):
   * the message. The command was stopped and the environment has ended; the participant's failure,
   * never an `infraError`. Later calls report it again.
   */
  limitExceeded?: string;
}

/** One open environment. */
export interface Environment {
  /** The backend's name for it (a container id, a pod name), for logs. */
  readonly id: string;
  /** Where it runs, for a backend with several places (the docker pool's engine URL). */
  readonly engine?: string;
  /** True when exec keeps stdout and stderr apart on request (`streams: "separate"`); optional, absent = no. */
  readonly separateStreams?: boolean;
  /** Run `argv` (no shell unless argv names one) in the environment's default working directory. Never rejects. */
  exec(argv: readonly string[], options: EnvironmentExecOptions): Promise<EnvironmentExecOutcome>;
  /** A file's text; rejects (SandboxError) when it cannot be read. */
  readFile(path: string): Promise<string>;
  /** Write (create or replace) a file; its content never travels on a command line. Rejects (SandboxError) on failure. */
  writeFile(path: string, content: string): Promise<void>;
  /**
   * Asked after a failed command: null when the backend still answers, else why not (an engine that
   * stopped answering makes the failure ours, never the code's). Never rejects.
   */
  backendProblem(): Promise<string | null>;
  /**
   * Optional: after the last command, waits for the environment's pending checks (the disk measured
   * after each command) and returns the limit the participant broke ({@link EnvironmentExecOutcome.limitExceeded}),
   * or null. Never rejects.
   */
  limitProblem?(): Promise<string | null>;
  /**
   * Optional: the paths the environment's commands added (`A`), changed (`C`) or deleted (`D`) against its
   * image, as the backend sees them from outside (the engine's `docker diff`: nothing inside can forge it);
   * null when the backend cannot tell. Never rejects.
   */
  changedPaths?(): Promise<Array<{ kind: "A" | "C" | "D"; path: string }> | null>;
  /**
   * Optional: a regular file's bytes read by the backend from outside (the engine's `docker cp`), never by a
   * program of the environment (whose `cat` its commands may have replaced); null when the path is no
   * regular file or is larger than `maxBytes`. Rejects (SandboxError) when the backend fails.
   */
  readFileOutside?(path: string, maxBytes: number): Promise<Buffer | null>;
  /**
   * Optional: copy a host directory's content into `target` (absolute; created when missing) by the backend
   * from outside (the engine's `docker cp`), no program of the environment taking part. Rejects
   * (SandboxError) when the backend fails.
   */
  copyInOutside?(hostDir: string, target: string): Promise<void>;
  /** End it and release everything it holds. Idempotent. */
  close(): Promise<void>;
}

/** The part of a sandbox that opens environments (present exactly when it declares `environments`). */
export interface EnvironmentProvider {
  /** Open one; rejects (SandboxError E_SANDBOX_UNAVAILABLE, the backend's message) when it cannot, leaving nothing behind. */
  openEnvironment(spec: EnvironmentSpec, signal?: AbortSignal): Promise<Environment>;
}

/**
 * The sandbox's environments, or SandboxCapabilityError naming the backend when it has none. A backend
 * that declares the capability without the method is refused the same way (fail closed).
 */
export function environmentsOf(sandbox: Sandbox, caller: string): EnvironmentProvider {
  requireCapabilities(sandbox, ["environments"], caller);
  if (sandbox.openEnvironment === undefined) throw new SandboxCapabilityError(sandbox.backend, "environments", caller);
  return { openEnvironment: (spec, signal) => sandbox.openEnvironment!(spec, signal) };
}

/**
 * Refuse (SandboxError E_SANDBOX_OPTIONS) a spec asking what only container-engine backends offer (`network`,
 * `prepare`): a backend that cannot honour them says so rather than open an environment without them.
 */
export function refuseEngineOnly(spec: EnvironmentSpec, backend: string): void {
  if (spec.network !== undefined)
    throw new SandboxError(
      "E_SANDBOX_OPTIONS",
      `the ${backend} backend gives environments no network: spec.network (${spec.network}) is offered by sandbox: docker and docker-pool`,
    );
  if (spec.prepare !== undefined)
    throw new SandboxError(
      "E_SANDBOX_OPTIONS",
      `the ${backend} backend does not build images where it places an environment: spec.prepare is offered by sandbox: docker and docker-pool`,
    );
}
