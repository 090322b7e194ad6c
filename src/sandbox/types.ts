/**
 * One interface for every place untrusted code runs. The backends are the
 * registry's (registry.ts): each folder's descriptor says what it is. What a
 * backend offers beyond `exec` is a named capability (capabilities.ts) it
 * declares in `capabilities`.
 */
import type { IsolationLevel, SandboxBackendName } from "./registry.js";
import type { SandboxCapability } from "./capabilities.js";
import type { Environment, EnvironmentSpec } from "./environment.js";

export type { IsolationLevel } from "./registry.js";

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
  readonly backend: SandboxBackendName;
  readonly isolation: IsolationLevel;
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
