/**
 * Builds the argv that starts one sandboxed program (pure: no I/O, unit-testable).
 *
 * bwrap runs as the host user (root on these machines) so that it can bind
 * anything, and the program inside is then dropped with setpriv to uid 65534
 * with no capabilities and no_new_privs: RLIMIT_NPROC is not enforced for
 * root, and a uid-0-mapped user namespace would still own root's files.
 * `asRoot` instead gets uid 0 in a new user namespace with every capability
 * dropped (what scripts that "write /root/.bashrc" need, on overlays).
 */
import type { SandboxLimits } from "../types.js";
import { TMPFS_BYTES } from "../limits.js";
import { SANDBOX_UID, type HostTools, type LocalIsolation } from "./probe.js";
import { hostViewArgs, within, type HostViewInput, type LateMount } from "./host-view.js";

const strictlyWithin = (p: string, tree: string): boolean => p !== tree && within(p, tree);

export interface MountSpec {
  host: string;
  target: string;
  writable: boolean;
}

export interface LaunchSpec {
  level: LocalIsolation;
  tools: HostTools;
  /** Limits applied with prlimit right before the program; null for the fork server (it sets them per job). */
  limits: SandboxLimits | null;
  asRoot: boolean;
  /** argv of the program inside the sandbox. */
  program: string[];
  /** Working directory inside the sandbox (bwrap) or on the host (other levels). */
  cwd: string;
  /** Bind mounts, in order (bwrap only; later ones land on top of earlier ones). */
  mounts: MountSpec[];
  /**
   * bwrap only: what of the host the job's root holds (host-view.ts; read with readHostView). The
   * sandbox root is otherwise empty: the host root is never bound.
   */
  view?: HostViewInput;
  /** Masked files already hidden by an overlay (left unmasked so the program can replace them). */
  unmasked?: readonly string[];
  /**
   * bwrap on a root host only: keep these capabilities (and uid 0) for the program instead of
   * dropping it to the sandbox uid. Used for the fork server alone, which needs them to give each
   * job its own mount namespace and uid and drops them in every job before any job code runs.
   */
  keepCaps?: readonly string[];
  /** The uid and gid the program is dropped to on a root host; default {@link SANDBOX_UID} (an environment has its own). */
  uid?: number;
  /** bwrap only: the program is PID 1 of its namespace (bwrap's own init left out): local-environment.ts. */
  asPid1?: boolean;
  /**
   * bwrap on a root host, program dropped to a uid: cap the files (inodes) each private tmpfs (/tmp, /var/tmp,
   * /dev/shm) may hold. bwrap takes no inode option, so they are remounted with `nr_inodes` by
   * {@link TMPFS_INODES_PRELUDE}, which runs with bwrap's capabilities before the drop and then execs the rest;
   * a remount that fails ends the start (an error of ours, never a command's).
   */
  tmpfsInodes?: number;
}

/**
 * Remount the private tmpfs mounts with an inode cap (argv[1]), keeping their size, then exec argv[2:]. A tmpfs
 * inode costs unreclaimable kernel memory that `size=` does not count (200,000 empty files took ~205 MB).
 */
export const TMPFS_INODES_PRELUDE = String.raw`
import ctypes, os, sys
libc = ctypes.CDLL(None, use_errno=True)
MS_NOSUID, MS_NODEV, MS_REMOUNT = 2, 4, 32
opts = ("size=%d,nr_inodes=%d" % (int(sys.argv[1]), int(sys.argv[2]))).encode()
for p in (b"/tmp", b"/var/tmp", b"/dev/shm"):
    if libc.mount(b"tmpfs", p, b"tmpfs", MS_REMOUNT | MS_NOSUID | MS_NODEV, opts) != 0:
        e = ctypes.get_errno()
        sys.stderr.write("a2a-bench: capping the inodes of %s: %s\n" % (p.decode(), os.strerror(e))); sys.exit(3)
os.execv(sys.argv[3], sys.argv[3:])
`;

export interface LaunchCommand {
  file: string;
  args: string[];
  /** Host cwd for spawn (bwrap: "/"; it changes directory itself). */
  spawnCwd: string;
}

/** The sandbox's own tmpfs mounts: bind targets below them need their parents created. */
export const TMPFS_TOPS = ["/tmp", "/var/tmp", "/dev/shm", "/root"];

/** Host files no sandboxed program may read, even as namespace-root. */
export const MASKED_FILES = ["/etc/shadow", "/etc/gshadow", "/etc/shadow-", "/etc/gshadow-"];

function prlimitArgs(tools: HostTools, limits: SandboxLimits | null): string[] {
  if (limits === null || tools.prlimit === null) return [];
  return [
    tools.prlimit,
    `--as=${limits.memoryBytes}`,
    `--nproc=${limits.maxProcesses}`,
    `--cpu=${limits.cpuSeconds}`,
    "--core=0",
    "--",
  ];
}

function dropArgs(spec: LaunchSpec): string[] {
  if (spec.keepCaps !== undefined && spec.level === "bwrap") return [];
  if (spec.asRoot || !spec.tools.isRoot || spec.tools.setpriv === null) return [];
  const uid = spec.uid ?? SANDBOX_UID;
  return [
    spec.tools.setpriv,
    `--reuid=${uid}`,
    `--regid=${uid}`,
    "--clear-groups",
    "--inh-caps=-all",
    "--bounding-set=-all",
    "--no-new-privs",
    // The uid change clears unshare's --kill-child parent-death signal of the namespace's init: set it again.
    ...(spec.level === "unshare" ? ["--pdeathsig", "KILL"] : []),
    "--",
  ];
}

function bwrapArgs(spec: LaunchSpec): string[] {
  if (spec.view === undefined) throw new Error("bwrap launch without a host view (readHostView)");
  const view = hostViewArgs(spec.view);
  const a = [
    ...view.system,
    "--dev",
    "/dev",
    "--proc",
    "/proc",
    "--size",
    String(TMPFS_BYTES),
    "--tmpfs",
    "/tmp",
    "--size",
    String(TMPFS_BYTES),
    "--tmpfs",
    "/var/tmp",
    "--size",
    String(TMPFS_BYTES),
    "--tmpfs",
    "/dev/shm",
    // root's home holds the host's credentials; only what programs need is bound back below.
    "--perms",
    "0755",
    "--tmpfs",
    "/root",
    // tmpfs mounts are created root-owned; programs run as the sandbox uid and need /tmp.
    "--chmod",
    "1777",
    "/tmp",
    "--chmod",
    "1777",
    "/var/tmp",
    "--chmod",
    "1777",
    "/dev/shm",
    "--unshare-pid",
    "--unshare-net",
    "--unshare-ipc",
    "--unshare-uts",
    "--unshare-cgroup-try",
    "--hostname",
    "sandbox",
    "--die-with-parent",
    "--new-session",
  ];
  const made = new Set<string>();
  // bwrap creates missing mount-point parents 0700 (root-owned), in its root tmpfs and in its tmpfs
  // mounts: the dropped uid could not traverse them (e.g. a workDir's parents), so create each parent
  // that is not inside a bound host tree world-traversable first.
  const traversableParents = (target: string): void => {
    const parts = target.split("/").filter((x) => x !== "");
    for (let i = 1; i < parts.length; i++) {
      const dir = "/" + parts.slice(0, i).join("/");
      if (made.has(dir) || view.trees.some((t) => within(dir, t))) continue;
      made.add(dir);
      a.push("--perms", "0755", "--dir", dir);
    }
  };
  const pushLate = (m: LateMount): void => {
    traversableParents(m.path);
    if (m.kind === "ro-bind") a.push("--ro-bind", m.path, m.path);
    else if (m.kind === "tmpfs") a.push("--perms", "0755", "--tmpfs", m.path);
    else a.push("--ro-bind", "/dev/null", m.path);
  };
  for (const m of view.late) pushLate(m);
  for (const m of spec.mounts) {
    traversableParents(m.target);
    a.push(m.writable ? "--bind" : "--ro-bind", m.host, m.target);
    // A mount over a directory (an overlay of /usr or /var, a bind at /root) covers what was put below it:
    // the masks of hidden paths, the runtimes and the private tmpfs mounts go back on top.
    for (const l of view.late) if (strictlyWithin(l.path, m.target)) pushLate(l);
    for (const t of TMPFS_TOPS)
      if (strictlyWithin(t, m.target)) a.push("--size", String(TMPFS_BYTES), "--tmpfs", t, "--chmod", "1777", t);
  }
  // Masked only where something shows them: a bound tree, or a job's mount over /etc (an overlay with an
  // explicit lower layer, a bind); otherwise they are not in the job's root at all.
  const shows = (f: string): boolean =>
    view.trees.some((t) => within(f, t)) || spec.mounts.some((m) => strictlyWithin(f, m.target));
  for (const f of MASKED_FILES) if (!spec.unmasked?.includes(f) && shows(f)) a.push("--ro-bind-try", "/dev/null", f);
  if (spec.asRoot) a.push("--unshare-user", "--uid", "0", "--gid", "0", "--cap-drop", "ALL");
  else if (spec.keepCaps !== undefined) {
    a.push("--cap-drop", "ALL");
    for (const c of spec.keepCaps) a.push("--cap-add", c);
  }
  if (spec.asPid1 === true) a.push("--as-pid-1");
  a.push("--chdir", spec.cwd, "--");
  return a;
}

/** The full command line for one launch at the spec's isolation level. */
export function buildLaunchCommand(spec: LaunchSpec): LaunchCommand {
  const dropped = [...dropArgs(spec), ...prlimitArgs(spec.tools, spec.limits), ...spec.program];
  const capInodes =
    spec.level === "bwrap" &&
    spec.tmpfsInodes !== undefined &&
    spec.tools.isRoot &&
    !spec.asRoot &&
    spec.keepCaps === undefined;
  const inner = capInodes
    ? [
        spec.tools.python,
        "-I",
        "-S",
        "-c",
        TMPFS_INODES_PRELUDE,
        String(TMPFS_BYTES),
        String(spec.tmpfsInodes),
        ...dropped,
      ]
    : dropped;
  switch (spec.level) {
    case "bwrap":
      return { file: spec.tools.bwrap!, args: [...bwrapArgs(spec), ...inner], spawnCwd: "/" };
    case "unshare": {
      const unshare = [
        spec.tools.unshare!,
        ...["--net", "--pid", "--fork", "--mount-proc", "--kill-child", "--ipc", "--uts", "--"],
        ...inner,
      ];
      // --kill-child ends the namespace when unshare ends, but nothing ends unshare when its owner dies by
      // SIGKILL (bwrap has --die-with-parent): setpriv gives it that parent-death signal, which its exec keeps.
      if (spec.tools.setpriv === null) return { file: unshare[0]!, args: unshare.slice(1), spawnCwd: spec.cwd };
      return { file: spec.tools.setpriv, args: ["--pdeathsig", "KILL", "--", ...unshare], spawnCwd: spec.cwd };
    }
    case "none":
      return { file: inner[0]!, args: inner.slice(1), spawnCwd: spec.cwd };
  }
}

/** The environment every sandboxed program starts from (the host env is never inherited). */
export function baseEnv(
  tools: HostTools,
  home: string,
  extra: Record<string, string> | undefined,
): Record<string, string> {
  const pythonBin = tools.python.slice(0, tools.python.lastIndexOf("/"));
  return {
    PATH: `${pythonBin}:/usr/local/bin:/usr/bin:/bin`,
    HOME: home,
    LANG: "C.UTF-8",
    LC_ALL: "C.UTF-8",
    TMPDIR: "/tmp",
    PYTHONDONTWRITEBYTECODE: "1",
    PYTHONUNBUFFERED: "1",
    ...(extra ?? {}),
  };
}
