/**
 * The one way the harness deletes a tree a participant's code may have touched: an environment's directory,
 * a SWE-bench worktree, a RedCode item's world, a sandbox's staging and job directories, temporary files.
 *
 * What a participant can leave, and how each is removed:
 * - paths deeper than PATH_MAX (nested 250-character names: node's `fs.rm` fails with ENAMETOOLONG): GNU
 *   `rm -rf` walks with fts, descending by file descriptor (openat), so no path it uses grows with the depth;
 * - directories without permissions (`chmod 000`; on a host that is not root our own uid cannot read or
 *   enter them): when the first pass leaves something, `chmod -R u+rwx` (fts again, preorder: a directory is
 *   opened up before it is read) and a second pass;
 * - FIFOs and sockets: unlinked like files (nothing opens them);
 * - mounts below the tree (ours: a sandbox's overlay or bind mount left behind): each is detached (lazy
 *   unmount, deepest first) when this process may; `rm --one-file-system` never crosses into one that stays;
 * - links: never followed (fts with -P; a link given as `path` is itself removed, never its target).
 *
 * Then it checks that `path` is gone. When it is not, it throws {@link TreeRemovalError}
 * (`E_TREE_REMAINS`) with what the tools said: the caller logs it, and it never changes a verdict already
 * judged (runner/attribution.ts). A tree that was never there is removed already.
 */
import { lstat, readFile } from "node:fs/promises";
import { resolve } from "node:path";
import { runCommand, succeeded, describeOutcome } from "../process/index.js";
import { BenchError } from "../util/errors.js";

/** Limit of each tool's pass over the tree, ms (a tree of millions of entries on a loaded host). */
export const REMOVAL_PASS_TIMEOUT_MS = 600_000;
/** Bytes of each tool's stderr kept for the error. */
const STDERR_BYTES = 64 * 1024;
/** Characters of the tools' messages the error carries. */
const MESSAGE_CHARS = 1_000;

/** A tree that is still there after every pass (typed, with the tools' messages). */
export class TreeRemovalError extends BenchError {
  declare readonly code: "E_TREE_REMAINS";
  constructor(
    readonly path: string,
    readonly details: string,
  ) {
    super("E_TREE_REMAINS", `could not remove ${path}: ${details.slice(0, MESSAGE_CHARS)}`);
  }
}

async function exists(path: string): Promise<boolean> {
  try {
    await lstat(path);
    return true;
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code === "ENOENT" || (e as NodeJS.ErrnoException).code === "ENOTDIR") return false;
    throw e;
  }
}

/** A mountinfo path field decoded (the kernel writes space, tab, newline and backslash as octal escapes). */
function unescapeMountPath(field: string): string {
  return field.replace(/\\([0-7]{3})/g, (_, oct: string) => String.fromCharCode(parseInt(oct, 8)));
}

/** Mount points at or below `root` in this process's mount namespace, deepest first (pure: mountinfo text). */
export function mountsWithin(mountinfo: string, root: string): string[] {
  const found: string[] = [];
  for (const line of mountinfo.split("\n")) {
    const field = line.split(" ")[4];
    if (field === undefined) continue;
    const point = unescapeMountPath(field);
    if (point === root || point.startsWith(root.endsWith("/") ? root : `${root}/`)) found.push(point);
  }
  return [...new Set(found)].sort((a, b) => b.length - a.length);
}

/** Detach the mounts below `root`; what could not be detached, as messages. */
async function detachMounts(root: string): Promise<string[]> {
  const info = await readFile("/proc/self/mountinfo", "utf8").catch(() => "");
  const problems: string[] = [];
  for (const point of mountsWithin(info, root)) {
    const o = await runCommand("umount", ["-l", "--", point], {
      timeoutMs: REMOVAL_PASS_TIMEOUT_MS,
      maxOutputBytes: STDERR_BYTES,
      overflow: "tail",
    });
    if (!succeeded(o)) problems.push(`mount ${point} stays (umount -l: ${o.stderr.trim() || describeOutcome(o)})`);
  }
  return problems;
}

async function pass(file: string, args: string[]): Promise<string> {
  const o = await runCommand(file, args, {
    timeoutMs: REMOVAL_PASS_TIMEOUT_MS,
    maxOutputBytes: STDERR_BYTES,
    overflow: "tail",
  });
  return succeeded(o) ? "" : `${file}: ${o.stderr.trim().slice(-MESSAGE_CHARS) || describeOutcome(o)}`;
}

/**
 * Remove `path` and everything below it, whatever a participant left there (see the module comment);
 * resolves once it is gone, rejects with {@link TreeRemovalError} when it is not.
 */
export async function removeTree(path: string): Promise<void> {
  const target = resolve(path);
  if (target === "/") throw new TreeRemovalError(target, "refusing to remove /");
  if (!(await exists(target))) return;
  const messages = await detachMounts(target);
  const rm = ["-rf", "--one-file-system", "--", target];
  messages.push(await pass("rm", rm));
  if (await exists(target)) {
    // Something was unreadable or unenterable to us: open every directory up, then again.
    messages.push(await pass("chmod", ["-R", "u+rwx", "--", target]));
    messages.push(await pass("rm", rm));
  }
  if (await exists(target))
    throw new TreeRemovalError(target, messages.filter((m) => m !== "").join("; ") || "it is still there");
}

/** {@link removeTree} for callers that go on whatever happens: the failure is handed to `report`, never thrown. */
export async function removeTreeReported(
  path: string,
  report: (err: TreeRemovalError | Error) => void,
): Promise<boolean> {
  try {
    await removeTree(path);
    return true;
  } catch (e) {
    report(e instanceof Error ? e : new Error(String(e)));
    return false;
  }
}
