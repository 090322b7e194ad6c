/**
 * What of the host a bwrap job sees: an allowlist, never the host root.
 *
 * A participant's program is adversarial: with the host root bound read-only
 * it could open the datasets (HumanEval's canonical solutions), the checkout,
 * other runs' results, caches (SWE-bench gold patches) and home directories.
 * So the sandbox root is bubblewrap's empty tmpfs and only this is put in it:
 * - the interpreter/runtime trees: /usr, and /bin /lib /lib64 /sbin (/lib32
 *   /libx32) as the host has them (usrmerge symlinks re-created as symlinks,
 *   real directories bound read-only);
 * - the few /etc entries programs need to start and resolve names
 *   ({@link ETC_ALLOWLIST}); /etc/shadow and friends never (MASKED_FILES);
 * - /dev (bwrap's minimal devtmpfs), a fresh /proc, private tmpfs mounts;
 * - the python prefixes and the node binary the probe found, when they live
 *   outside /usr (pyenv under /root, /opt/...);
 * - the job's own program, files, work dir and binds (launch-command.ts).
 * Defense in depth: a path the caller names as hidden (datasets root,
 * checkout, results dir, HOME) that lies INSIDE one of these trees (say
 * datasets kept under /usr/local/share) is masked: an empty tmpfs over a
 * directory, /dev/null over a file. `hostViewArgs` is pure; `readHostView`
 * reads the host (a few lstat calls).
 */
import { lstatSync, readdirSync, readlinkSync, realpathSync, statSync } from "node:fs";
import { dirname, sep } from "node:path";

/** Top-level directories of a usrmerge'd or classic layout: a symlink on the host is re-created, a directory bound. */
export const ROOT_LINK_DIRS = ["/bin", "/sbin", "/lib", "/lib64", "/lib32", "/libx32"] as const;

/**
 * /etc entries a program may need, each bound read-only when the host has it (missing ones are skipped).
 * Why each: dynamic linking (ld.so.*), user and group names for getpwuid/`id`/`whoami` (passwd, group:
 * names and shells only, the hashes are in the masked shadow files), name resolution of localhost and the
 * resolver's own configuration (nsswitch.conf, host.conf, hosts, gai.conf, resolv.conf, protocols,
 * services: there is no network anyway), time zone (localtime, timezone), Debian's alternatives symlinks
 * (/usr/bin/editor...) and the python3.x site config Debian's python links to, TLS trust roots (ssl/certs,
 * ca-certificates: public data; not ssl/private, which an asRoot job, uid 0 of the host, could read), what platform/os-release report (os-release, debian_version), mime types (python's
 * mimetypes), shells and /etc/mtab (a symlink to /proc/self/mounts). Left out on purpose: configs that may
 * hold credentials or operator data (pip.conf, npmrc, gitconfig, docker, ssh, ...), machine-id, everything else.
 */
export const ETC_ALLOWLIST = [
  "ld.so.cache",
  "ld.so.conf",
  "ld.so.conf.d",
  "passwd",
  "group",
  "nsswitch.conf",
  "host.conf",
  "hosts",
  "gai.conf",
  "resolv.conf",
  "protocols",
  "services",
  "localtime",
  "timezone",
  "alternatives",
  "ssl/certs",
  "ssl/openssl.cnf",
  "ca-certificates",
  "os-release",
  "debian_version",
  "mime.types",
  "shells",
  "mtab",
] as const;

/** What the caller found on the host for one path (lstat, not following a final symlink). */
export type HostEntry = { kind: "dir" } | { kind: "file" } | { kind: "symlink"; target: string } | { kind: "absent" };

export interface HostViewInput {
  /** lstat of each ROOT_LINK_DIRS entry, /etc/<ETC_ALLOWLIST entry> and `/etc/python3*` names found. */
  entries: ReadonlyMap<string, HostEntry>;
  /** Extra /etc entries found on the host that match the allowlist's patterns (e.g. python3.11). */
  etcExtra: readonly string[];
  /** Interpreter trees (python prefixes, node binary), real paths. */
  runtimes: readonly string[];
  /** Real paths the job must not see, with what they are (dirs get a tmpfs, files /dev/null). */
  hidden: ReadonlyArray<{ path: string; dir: boolean }>;
}

/** True when `p` is `tree` or lies below it. */
export function within(p: string, tree: string): boolean {
  return p === tree || p.startsWith(tree.endsWith(sep) ? tree : tree + sep);
}

/** The host trees bound whole (what a hidden path is checked against). */
export function boundTrees(input: HostViewInput): string[] {
  const trees = ["/usr"];
  for (const d of ROOT_LINK_DIRS) if (input.entries.get(d)?.kind === "dir") trees.push(d);
  for (const e of [...ETC_ALLOWLIST, ...input.etcExtra]) {
    const p = `/etc/${e}`;
    if (input.entries.get(p)?.kind === "dir") trees.push(p);
  }
  return trees;
}

/** Runtimes not already inside a bound tree: they need their own bind. */
function ownRuntimes(input: HostViewInput, trees: readonly string[]): string[] {
  return input.runtimes.filter((r) => !trees.some((t) => within(r, t)));
}

/** A mount placed after the sandbox's private tmpfs mounts: a runtime bound back, or a mask. */
export type LateMount =
  { kind: "ro-bind"; path: string } | { kind: "tmpfs"; path: string } | { kind: "null"; path: string };

/**
 * The system part of the job's root, in two parts: `system` (bwrap arguments) goes first, before the
 * sandbox's private tmpfs mounts; `late` after them (a runtime may live below /root, itself a tmpfs) and
 * before the job's own mounts: the runtimes' binds, then the masks over hidden paths, then any runtime
 * bound back on top of a mask that covers it. `trees`: the host trees bound whole. Throws when a hidden path contains a whole bound tree:
 * hiding it would take the system away (an operator keeping the datasets at /usr, say).
 */
export function hostViewArgs(input: HostViewInput): { system: string[]; late: LateMount[]; trees: string[] } {
  const system: string[] = ["--ro-bind", "/usr", "/usr"];
  for (const d of ROOT_LINK_DIRS) {
    const e = input.entries.get(d);
    if (e?.kind === "symlink") system.push("--symlink", e.target, d);
    else if (e?.kind === "dir") system.push("--ro-bind", d, d);
  }
  // bwrap would create /etc (and /etc/ssl) 0700 for the binds below: the sandbox uid could not enter them.
  const parents = new Set<string>();
  for (const name of [...ETC_ALLOWLIST, ...input.etcExtra]) {
    const p = `/etc/${name}`;
    const e = input.entries.get(p);
    if (e === undefined || e.kind === "absent") continue;
    for (let d = dirname(p); d !== "/" && !parents.has(d); d = dirname(d)) {
      parents.add(d);
      system.push("--perms", "0755", "--dir", d);
    }
    // A symlink is re-created (its target resolves inside the sandbox's own view, e.g. mtab → /proc).
    if (e.kind === "symlink") system.push("--symlink", e.target, p);
    else system.push("--ro-bind", p, p);
  }
  const trees = boundTrees(input);
  const own = ownRuntimes(input, trees);
  const late: LateMount[] = own.map((path) => ({ kind: "ro-bind", path }));
  const shown = [...trees, ...own];
  const masked: string[] = [];
  for (const h of input.hidden) {
    if (h.path === "/") continue; // a HOME of "/": the allowlist already keeps the rest of the root away
    const swallowed = trees.find((t) => within(t, h.path));
    if (swallowed !== undefined)
      throw new Error(`hidden path ${h.path} contains the sandbox's system tree ${swallowed}; it cannot be hidden`);
    if (!shown.some((t) => within(h.path, t) && h.path !== t)) continue; // not shown anyway
    masked.push(h.path);
    late.push({ kind: h.dir ? "tmpfs" : "null", path: h.path });
  }
  // A runtime inside a masked path (a venv kept in a checkout under /usr/local) is put back on top.
  for (const r of input.runtimes)
    if (masked.some((m) => within(r, m) && r !== m)) late.push({ kind: "ro-bind", path: r });
  return { system, late, trees };
}

/** lstat one path into a HostEntry (never throws). */
function entryOf(p: string): HostEntry {
  try {
    const st = lstatSync(p);
    if (st.isSymbolicLink()) return { kind: "symlink", target: readlinkSync(p) };
    return st.isDirectory() ? { kind: "dir" } : { kind: "file" };
  } catch {
    return { kind: "absent" };
  }
}

/**
 * Read what `hostViewArgs` needs from this host, now (a few lstat calls: cheap enough per launch, and a
 * hidden path created after the sandbox was, e.g. a run's output dir, is still masked). Hidden paths are
 * resolved to real paths; missing ones are dropped (nothing to hide).
 */
export function readHostView(runtimes: readonly string[], hidden: readonly string[]): HostViewInput {
  const entries = new Map<string, HostEntry>();
  for (const d of ROOT_LINK_DIRS) entries.set(d, entryOf(d));
  let etcExtra: string[] = [];
  try {
    etcExtra = readdirSync("/etc").filter((n) => /^python3(\.\d+)?$/.test(n));
  } catch {
    /* no /etc: nothing extra */
  }
  for (const e of [...ETC_ALLOWLIST, ...etcExtra]) entries.set(`/etc/${e}`, entryOf(`/etc/${e}`));
  const resolved: Array<{ path: string; dir: boolean }> = [];
  for (const h of hidden) {
    try {
      const real = realpathSync(h);
      resolved.push({ path: real, dir: statSync(real).isDirectory() });
    } catch {
      /* absent: nothing to hide */
    }
  }
  return { entries, etcExtra, runtimes, hidden: resolved };
}

/**
 * What the job's root shows at `target` without an overlay, for an overlay's lower layer:
 * `{ host: target }` when a bound tree or runtime covers it (the host's own directory: /usr), else the
 * shown /etc entries below it to copy into a fresh lower directory (/etc: the allowlist; /var: nothing).
 * Throws when a whole tree or runtime lies below `target` (an overlay of `/` would need all of /usr copied).
 */
export function overlayLower(
  input: HostViewInput,
  target: string,
): { host: string } | { copy: Array<{ from: string; rel: string }> } {
  const trees = [...boundTrees(input), ...input.runtimes];
  if (trees.some((t) => within(target, t))) return { host: target };
  // /etc entries below the target are copied; a whole system tree or runtime is not.
  const inside = trees.find((t) => within(t, target) && !within(t, "/etc"));
  if (inside !== undefined)
    throw new Error(`an overlay of ${target} would show all of ${inside}; overlay a directory inside it instead`);
  const copy: Array<{ from: string; rel: string }> = [];
  for (const name of [...ETC_ALLOWLIST, ...input.etcExtra]) {
    const p = `/etc/${name}`;
    const e = input.entries.get(p);
    if (e !== undefined && e.kind !== "absent" && within(p, target) && p !== target)
      copy.push({ from: p, rel: p.slice(target.length + 1) });
  }
  return { copy };
}
