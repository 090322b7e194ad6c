/**
 * Finds, once per Sandbox, the strongest isolation this host offers and the
 * tools the launch lines need. Every level is tried for real (a throw-away
 * `true` run), never inferred from a binary merely existing. The probes are
 * child processes run concurrently (they are on every run's start-up path).
 */
import { existsSync, realpathSync } from "node:fs";
import { delimiter, join } from "node:path";
import type { IsolationLevel } from "../types.js";
import { SandboxError } from "../errors.js";
import { runCommand, succeeded } from "../../process/index.js";

export type LocalIsolation = Exclude<IsolationLevel, "e2b" | "docker">;

/** The unprivileged uid/gid programs run as when the host process is root ("nobody"). */
export const SANDBOX_UID = 65534;

export interface HostTools {
  bwrap: string | null;
  unshare: string | null;
  setpriv: string | null;
  prlimit: string | null;
  /** Absolute path of the python3 programs run with (resolved through shims such as pyenv). */
  python: string;
  /** Directories the interpreter needs (sys.prefix, sys.base_prefix), real paths. */
  pythonPrefixes: string[];
  node: string;
  /** True when this process is root: programs are then dropped to {@link SANDBOX_UID}. */
  isRoot: boolean;
}

/** The interpreter trees a job needs besides /usr: the python prefixes and the node binary. */
export function runtimeTrees(tools: HostTools): string[] {
  return [...tools.pythonPrefixes, tools.node];
}

export interface IsolationProbe {
  level: LocalIsolation;
  warnings: string[];
  tools: HostTools;
}

function which(name: string): string | null {
  for (const dir of (process.env["PATH"] ?? "/usr/bin:/bin").split(delimiter)) {
    const p = join(dir, name);
    if (dir && existsSync(p)) return p;
  }
  return null;
}

/** Bound on one probe run, ms (each takes milliseconds; a loaded host may take seconds). */
const PROBE_TIMEOUT_MS = 10_000;

/** Run `file args`; resolves exit status 0 → true (never rejects). */
async function works(file: string, args: string[]): Promise<boolean> {
  return succeeded(await runCommand(file, args, { timeoutMs: PROBE_TIMEOUT_MS }));
}

/** The host's python3, resolved once per process (a pyenv shim costs ~85 ms a start; the HumanEval checker shares it). */
let pythonProbe: Promise<{ python: string; pythonPrefixes: string[] }> | null = null;

/** Real path and prefixes of PATH's python3, probed once per process (a failed probe is tried again next time). */
export function probeHostPython(): Promise<{ python: string; pythonPrefixes: string[] }> {
  if (!pythonProbe) {
    pythonProbe = probePython();
    pythonProbe.catch(() => {
      pythonProbe = null;
    });
  }
  return pythonProbe;
}

async function probePython(): Promise<{ python: string; pythonPrefixes: string[] }> {
  // Not -S: in a virtual environment it is site that sets sys.prefix to the environment.
  const code =
    "import sys,os;print(os.path.realpath(sys.executable));print(os.path.realpath(sys.prefix));print(os.path.realpath(sys.base_prefix))";
  const o = await runCommand(which("python3") ?? "python3", ["-I", "-c", code], { timeoutMs: PROBE_TIMEOUT_MS });
  if (!succeeded(o))
    throw new SandboxError("E_SANDBOX_UNAVAILABLE", "python3 not found on PATH (the local sandbox needs it)");
  const [exe, prefix, basePrefix] = o.stdout.trim().split("\n");
  return { python: exe!, pythonPrefixes: [...new Set([prefix!, basePrefix!])] };
}

/** Tools present on this host (no isolation decided yet). */
export async function probeTools(): Promise<HostTools> {
  return {
    bwrap: which("bwrap"),
    unshare: which("unshare"),
    setpriv: which("setpriv"),
    prlimit: which("prlimit"),
    ...(await probeHostPython()),
    node: realpathSync(process.execPath),
    isRoot: process.getuid?.() === 0,
  };
}

const BWRAP_PROBE = [
  "--ro-bind",
  "/",
  "/",
  "--dev",
  "/dev",
  "--proc",
  "/proc",
  "--unshare-net",
  "--unshare-pid",
  "--die-with-parent",
  "--",
  "/bin/true",
];
const UNSHARE_PROBE = ["--net", "--pid", "--fork", "--mount-proc", "--kill-child", "--", "/bin/true"];

const UNSHARE_WARNING =
  "isolation 'unshare': bubblewrap unavailable; programs get their own network and PID namespaces and rlimits, " +
  "but see the host filesystem (read where world-readable, write where world-writable)";
const NONE_WARNING =
  "ISOLATION 'none': no namespaces available; untrusted programs run on the host with only rlimits" +
  " (and an unprivileged uid when we are root) — network, filesystem and processes are NOT contained";

/**
 * Decide the isolation level. `force` (tests, or an operator who wants a
 * weaker level on purpose) must name a level that works here.
 */
export async function probeIsolation(force?: LocalIsolation): Promise<IsolationProbe> {
  const bwrap = which("bwrap");
  const unshare = which("unshare");
  const wanted = (level: LocalIsolation): boolean => force === undefined || force === level;
  // Python, bwrap and (when bwrap may fail) unshare are probed at once; unused answers are dropped.
  const [tools, bwrapOk, unshareOk] = await Promise.all([
    probeTools(),
    wanted("bwrap") && bwrap !== null ? works(bwrap, BWRAP_PROBE) : Promise.resolve(false),
    wanted("unshare") && unshare !== null ? works(unshare, UNSHARE_PROBE) : Promise.resolve(false),
  ]);
  const warnings: string[] = [];
  if (tools.prlimit === null) warnings.push("prlimit not found: resource limits are not applied");
  if (tools.isRoot && tools.setpriv === null)
    warnings.push("running as root without setpriv: programs are not dropped to an unprivileged uid");
  const candidates: LocalIsolation[] = force ? [force] : ["bwrap", "unshare", "none"];
  for (const level of candidates) {
    if (level === "bwrap" && !bwrapOk) continue;
    if (level === "unshare" && !unshareOk) continue;
    if (level === "unshare") warnings.push(UNSHARE_WARNING);
    if (level === "none") warnings.push(NONE_WARNING);
    return { level, warnings, tools };
  }
  throw new SandboxError("E_SANDBOX_UNAVAILABLE", `isolation '${force}' was requested but does not work on this host`);
}
