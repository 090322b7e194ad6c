/**
 * One interface for every place untrusted code runs. The backends are the
 * registry's (registry.ts): each folder's descriptor says what it is. What a
 * backend offers beyond `exec` is a named capability (capabilities.ts) it
 * declares in `capabilities`.
 */

/** Every capability (capabilities.ts), in the order docs list them. */
export const SANDBOX_CAPABILITIES = [
  "environments",
  "images",
  "host-workdir",
  "host-binds",
  "overlays",
  "userns-root",
] as const;

/**
 * One capability:
 * - `environments`: `openEnvironment(spec)` gives a session living for one item (an image's file system,
 *   commands run one after another with state kept on disk, exec/readFile/writeFile/close); environment.ts.
 * - `images`: such an environment starts from a container image (`EnvironmentSpec.image`), whose own system
 *   and files it holds (an official SWE-bench image); without it an environment shows this host's system.
 * - `host-workdir`: `ExecRequest.workDir`, a host directory exposed read-write as the job's working directory.
 * - `host-binds`: `ExecRequest.binds`, further host paths mounted into the job.
 * - `overlays`: `ExecRequest.overlays`, copy-on-write system trees whose changes land in a host directory.
 * - `userns-root`: `ExecRequest.asRoot`, uid 0 in a fresh user namespace with every capability dropped.
 */
export type SandboxCapability = (typeof SANDBOX_CAPABILITIES)[number];

/** Bytes of a command's output kept by default (the test output of a large suite runs to megabytes). */
export const ENVIRONMENT_OUTPUT_BYTES = 16 * 1024 * 1024;

/* The `environments` capability's contract: environment.ts. */
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

export type SandboxLanguage = "python" | "bash" | "node";

export interface ExecRequest {
  language: SandboxLanguage;
  /** Program text. */
  code: string;
  /** Wall-clock limit in milliseconds. */
  timeoutMs: number;
  /** Extra files to place in the job's working directory (relative path → content). */
  files?: Record<string, string>;
  /** Host directory to expose (read-write, copy-on-nothing) as the job's working directory; e.g. a git worktree. Capability `host-workdir`. */
  workDir?: string;
  /** Extra environment for the program (the sandbox never inherits the host env). */
  env?: Record<string, string>;
  stdin?: string;
  /**
   * Make `target` (absolute path inside the sandbox, e.g. `/usr`, `/etc`) writable copy-on-write:
   * reads see `lowerDir` (default: what the job would see at `target` without the overlay, never
   * more of the host: the host's /usr, a copy of the allowlisted /etc entries, an empty /var; see
   * local/host-view.ts), every change lands in the host
   * directory `upperDir` (overlayfs semantics: new/changed files as files, deletions as whiteouts,
   * i.e. 0:0 character devices). The caller creates `upperDir` and inspects it afterwards.
   * Capability `overlays` (the local backend at bwrap isolation, the host process root: it mounts
   * overlayfs); without it the outcome carries `infraError`. Forces one sandbox per exec (no fork server).
   */
  overlays?: Array<{ target: string; upperDir: string; lowerDir?: string }>;
  /**
   * Run as uid 0 inside a fresh user namespace (mapped to host uid 0 but with every capability
   * dropped, no_new_privs, in its own pid/net/mount/ipc/uts namespaces, the allowlisted host trees
   * read-only except overlays and writable binds; /etc/shadow and /etc/gshadow masked). Uid 0 of the
   * host owns root's files: the allowlist is what keeps the rest of the host away. See docs/sandboxes.md.
   * Capability `userns-root`.
   */
  asRoot?: boolean;
  /** Extra host paths mounted at `target` inside the sandbox (read-only unless `writable`). Capability `host-binds`. */
  binds?: Array<{ host: string; target: string; writable: boolean }>;
}

/** Flat outcome record, same shape on success and failure (execa style). */
export interface ExecOutcome {
  exitCode: number | null;
  signal: string | null;
  timedOut: boolean;
  isCanceled: boolean;
  /** Output exceeded the sandbox's byte cap and the program was stopped. */
  outputLimitExceeded: boolean;
  durationMs: number;
  /** Last bytes of stdout/stderr (bounded). */
  stdoutTail: string;
  stderrTail: string;
  /** Sandbox infrastructure failure (not the program's own failure), if any. */
  infraError?: string;
  /** Where it ran, for a backend with several places (the docker pool's engine URL). */
  engine?: string;
}

export interface SandboxLimits {
  /** Address-space cap per program, bytes. */
  memoryBytes: number;
  /** Max processes/threads per program tree. */
  maxProcesses: number;
  /** Cap on captured output per stream, bytes; beyond it the program is stopped. */
  maxOutputBytes: number;
  /** CPU seconds per program (RLIMIT_CPU); wall limit comes from ExecRequest.timeoutMs. */
  cpuSeconds: number;
  /**
   * Bytes an environment (environment.ts) may write to its own disk (a container's writable layer);
   * optional, default ENVIRONMENT_DISK_BYTES (limits.ts). Going past it ends the environment as the
   * participant's failure.
   */
  diskBytes?: number;
  /** CPUs an environment may use (a container's `--cpus`); optional, default 1. */
  cpus?: number;
}

/** What a run tells the sandbox at its start (warmUp), fixed for the sandbox's life. */
export interface SandboxWarmUp {
  /** Python modules (name → source) every job of the run imports: loaded once where jobs are started. */
  readonly pythonModules?: Readonly<Record<string, string>>;
  /** The python jobs need the standard library only: their interpreter may start without site (`-S`). */
  readonly pythonStdlibOnly?: boolean;
}

export interface Sandbox {
  /** Its backend's name (registry.ts). */
  readonly backend: string;
  /** One of its backend's `isolationLevels`; recorded in results, never silently weaker. */
  readonly isolation: string;
  /** Human-readable warnings (e.g. weaker isolation than bwrap). */
  readonly warnings: readonly string[];
  /**
   * What this backend offers here and now beyond plain `exec` (capabilities.ts). A request using a field
   * of a capability not in this set is refused with `infraError`; a caller needing one asks up front.
   */
  readonly capabilities: ReadonlySet<SandboxCapability>;
  /** Present exactly when `capabilities` has `environments`: open a per-item environment (environment.ts). */
  openEnvironment?(spec: EnvironmentSpec, signal?: AbortSignal): Promise<Environment>;
  /** Run one program. Never rejects for a program failure; only for misuse after close(). */
  exec(req: ExecRequest, signal?: AbortSignal): Promise<ExecOutcome>;
  /**
   * Run many programs, results in order. Backends batch where it pays
   * (E2B: one request for many solutions; local: a fork server).
   */
  execMany(reqs: ExecRequest[], signal?: AbortSignal): Promise<ExecOutcome[]>;
  /**
   * Optional: start what the first program would otherwise wait for (local: the
   * python fork server) now, in the background. Never throws; a start failure
   * surfaces on the first exec that needs it.
   */
  warmUp?(prep?: SandboxWarmUp): void;
  /**
   * Optional: whether every python job started from now on finds the module `name` already loaded (given to
   * the first warmUp, before any job: local, the fork server loads it once and forks every job from there).
   * False on backends without it, or when the jobs' server had started before the module was given.
   */
  hasPythonModule?(name: string): boolean;
  /** Release every resource; kills anything still running. Idempotent. */
  close(): Promise<void>;
}

/** Outcome used when nothing ran (infrastructure failure or canceled before start). */
export function emptyOutcome(patch: Partial<ExecOutcome>): ExecOutcome {
  return {
    exitCode: null,
    signal: null,
    timedOut: false,
    isCanceled: false,
    outputLimitExceeded: false,
    durationMs: 0,
    stdoutTail: "",
    stderrTail: "",
    ...patch,
  };
}
