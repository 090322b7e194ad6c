/**
 * Finds, once per Sandbox, the strongest isolation this host offers and the
 * tools the launch lines need. Every level is tried for real (a throw-away
 * `true` run), never inferred from a binary merely existing. The probes are
 * child processes run concurrently (they are on every run's start-up path).
 */
import { realpathSync } from "node:fs";
import type { LocalIsolation } from "./levels.js";
import { findOnPath, resolveHostPython, type HostPython } from "./host-python.js";
import { SandboxError } from "../errors.js";
import { runCommand, succeeded } from "../../process/index.js";

export type { LocalIsolation } from "./levels.js";

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
  /** True when PATH's python3 is a virtual environment's: its site must run (no `-S`). */
  pythonVenv: boolean;
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
  return findOnPath(name);
}

/** Bound on one probe run, ms (each takes milliseconds; a loaded host may take seconds). */
const PROBE_TIMEOUT_MS = 10_000;

/** Run `file args`; resolves exit status 0 → true (never rejects). */
async function works(file: string, args: string[]): Promise<boolean> {
  return succeeded(await runCommand(file, args, { timeoutMs: PROBE_TIMEOUT_MS }));
}

/**
 * The host's python3, resolved once per process to its real binary (host-python.ts: remembered across runs, so a
 * version manager's shim is not started; the HumanEval checker shares it).
 */
let pythonProbe: Promise<HostPython> | null = null;

/** Real path, prefixes and version of PATH's python3, once per process (a failed probe is tried again next time). */
export function probeHostPython(): Promise<HostPython> {
  if (!pythonProbe) {
    pythonProbe = resolveHostPython();
    pythonProbe.catch(() => {
      pythonProbe = null;
    });
  }
  return pythonProbe;
}

function pythonTools(p: HostPython): Pick<HostTools, "python" | "pythonPrefixes" | "pythonVenv"> {
  return { python: p.python, pythonPrefixes: p.pythonPrefixes, pythonVenv: p.venv };
}

/** Tools present on this host (no isolation decided yet). */
export async function probeTools(): Promise<HostTools> {
  return {
    bwrap: which("bwrap"),
    unshare: which("unshare"),
    setpriv: which("setpriv"),
    prlimit: which("prlimit"),
    ...pythonTools(await probeHostPython()),
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
