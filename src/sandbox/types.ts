/**
 * One interface for every place untrusted code runs. Backends: `local`
 * (bubblewrap, or the strongest fallback available), `e2b` and `docker`
 * (a container engine; full isolation).
 */

/** How strongly the code was isolated; recorded in results, never silently weaker. */
export type IsolationLevel = "bwrap" | "unshare" | "none" | "e2b" | "docker";

export type SandboxLanguage = "python" | "bash" | "node";

export interface ExecRequest {
  language: SandboxLanguage;
  /** Program text. */
  code: string;
  /** Wall-clock limit in milliseconds. */
  timeoutMs: number;
  /** Extra files to place in the job's working directory (relative path → content). */
  files?: Record<string, string>;
  /** Host directory to expose (read-write, copy-on-nothing) as the job's working directory; e.g. a git worktree. */
  workDir?: string;
  /** Extra environment for the program (the sandbox never inherits the host env). */
  env?: Record<string, string>;
  stdin?: string;
  /**
   * Make `target` (absolute path inside the sandbox, e.g. `/usr`, `/etc`) writable copy-on-write:
   * reads see `lowerDir` (default: the host's own `target`), every change lands in the host
   * directory `upperDir` (overlayfs semantics: new/changed files as files, deletions as whiteouts,
   * i.e. 0:0 character devices). The caller creates `upperDir` and inspects it afterwards.
   * Local backend with bwrap isolation only, and the host process must be root (it mounts overlayfs);
   * otherwise the outcome carries `infraError`. Forces one sandbox per exec (no fork server).
   */
  overlays?: Array<{ target: string; upperDir: string; lowerDir?: string }>;
  /**
   * Run as uid 0 inside a fresh user namespace (mapped to host uid 0 but with every capability
   * dropped, no_new_privs, in its own pid/net/mount/ipc/uts namespaces, host FS read-only except
   * overlays and writable binds; /etc/shadow and /etc/gshadow masked). See the README section "Sandbox".
   */
  asRoot?: boolean;
  /** Extra host paths mounted at `target` inside the sandbox (read-only unless `writable`). */
  binds?: Array<{ host: string; target: string; writable: boolean }>;
  /**
   * Ask for a pass proof: the sandbox makes a fresh random token for this job, hands it to the
   * harness around the program (never through a file, argv or env var the program can read), and
   * the harness writes it to a private per-job channel only after the program's code returned
   * normally (no SystemExit even with code 0, no os._exit, no signal, no trace/profile hook). The
   * verdict lands in `ExecOutcome.proof`. Languages: python and node. See README "Sandbox" for
   * what each backend proves and what it does not.
   */
  proof?: boolean;
}

/**
 * Whether the program demonstrably ran to its end. `verified`: the channel carried exactly the
 * job's token; `missing`: nothing (exited early, killed, crashed); `mismatch`: something else
 * (forged or corrupted); `tampered`: the harness saw the program reach for what guards the proof
 * (trace/profile hooks, ctypes, gc object walks, its own memory) and refused; `unsupported`: this
 * backend/language cannot prove it (treat as not proven).
 */
export type ProofVerdict = "verified" | "missing" | "mismatch" | "tampered" | "unsupported";

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
  /** Present only when the request asked for `proof`. */
  proof?: ProofVerdict;
  /** Why the proof is not `verified`, in words (e.g. the hook the harness refused), bounded. */
  proofNote?: string;
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
}

export interface Sandbox {
  readonly backend: "local" | "e2b" | "docker";
  readonly isolation: IsolationLevel;
  /** Human-readable warnings (e.g. weaker isolation than bwrap). */
  readonly warnings: readonly string[];
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
  warmUp?(): void;
  /** Release every resource; kills anything still running. Idempotent. */
  close(): Promise<void>;
}
