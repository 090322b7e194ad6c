/**
 * Finds, once per Sandbox, the strongest isolation this host offers and the
 * tools the launch lines need. Every level is tried for real (a throw-away
 * `true` run), never inferred from a binary merely existing.
 */
import { spawnSync } from "node:child_process";
import { existsSync, realpathSync } from "node:fs";
import { delimiter, join } from "node:path";
import type { IsolationLevel } from "../types.js";
import { SandboxError } from "../errors.js";

export type LocalIsolation = Exclude<IsolationLevel, "e2b">;

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

function works(file: string, args: string[]): boolean {
  const r = spawnSync(file, args, { stdio: "ignore", timeout: 10_000 });
  return r.status === 0;
}

function probePython(): { python: string; pythonPrefixes: string[] } {
  const r = spawnSync(
    which("python3") ?? "python3",
    ["-c", "import sys,os;print(os.path.realpath(sys.executable));print(os.path.realpath(sys.prefix));print(os.path.realpath(sys.base_prefix))"],
    { encoding: "utf8", timeout: 10_000 },
  );
  if (r.status !== 0) throw new SandboxError("E_SANDBOX_UNAVAILABLE", "python3 not found on PATH (the local sandbox needs it)");
  const [exe, prefix, basePrefix] = r.stdout.trim().split("\n");
  return { python: exe!, pythonPrefixes: [...new Set([prefix!, basePrefix!])] };
}

/** Tools present on this host (no isolation decided yet). */
export function probeTools(): HostTools {
  return {
    bwrap: which("bwrap"),
    unshare: which("unshare"),
    setpriv: which("setpriv"),
    prlimit: which("prlimit"),
    ...probePython(),
    node: realpathSync(process.execPath),
    isRoot: process.getuid?.() === 0,
  };
}

function bwrapWorks(tools: HostTools): boolean {
  return tools.bwrap !== null &&
    works(tools.bwrap, ["--ro-bind", "/", "/", "--dev", "/dev", "--proc", "/proc", "--unshare-net", "--unshare-pid", "--die-with-parent", "--", "/bin/true"]);
}

function unshareWorks(tools: HostTools): boolean {
  return tools.unshare !== null && works(tools.unshare, ["--net", "--pid", "--fork", "--mount-proc", "--kill-child", "--", "/bin/true"]);
}

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
export function probeIsolation(force?: LocalIsolation): IsolationProbe {
  const tools = probeTools();
  const warnings: string[] = [];
  if (tools.prlimit === null) warnings.push("prlimit not found: resource limits are not applied");
  if (tools.isRoot && tools.setpriv === null) warnings.push("running as root without setpriv: programs are not dropped to an unprivileged uid");
  const candidates: LocalIsolation[] = force ? [force] : ["bwrap", "unshare", "none"];
  for (const level of candidates) {
    if (level === "bwrap" && !bwrapWorks(tools)) continue;
    if (level === "unshare" && !unshareWorks(tools)) continue;
    if (level === "unshare") warnings.push(UNSHARE_WARNING);
    if (level === "none") warnings.push(NONE_WARNING);
    return { level, warnings, tools };
  }
  throw new SandboxError("E_SANDBOX_UNAVAILABLE", `isolation '${force}' was requested but does not work on this host`);
}
