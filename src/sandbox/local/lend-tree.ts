/**
 * Host directories a dropped-privilege program must write (a work dir, a
 * writable bind) are lent to the sandbox uid for the duration of one exec and
 * given back afterwards: every entry, including ones the program created, is
 * chowned back to the owner the directory had before.
 *
 * One `chown -R -h` process does the walk: a worktree of a few thousand files
 * took about half a second each way with a per-entry lchown from node, and
 * about 20 ms this way. `-h` changes symlinks themselves and `-R` without
 * `-L` never follows them, so a link the program planted cannot redirect the
 * chown outside the tree.
 */
import { lstat } from "node:fs/promises";
import { describeOutcome, runCommand, succeeded } from "../../process/index.js";
import { SandboxError } from "../errors.js";

/** Bound on one recursive chown, ms: a large tree on a slow disk, far above the ~20 ms of a worktree. */
const CHOWN_TIMEOUT_MS = 120_000;

async function chownTree(path: string, uid: number, gid: number): Promise<void> {
  const o = await runCommand("chown", ["-R", "-h", `${uid}:${gid}`, "--", path], { timeoutMs: CHOWN_TIMEOUT_MS });
  if (!succeeded(o))
    throw new SandboxError(
      "E_SANDBOX_SETUP",
      `chown -R ${uid}:${gid} ${path} failed: ${o.stderr.trim() || describeOutcome(o)}`,
    );
}

/** Chown `path` recursively to uid/gid; returns the function that restores the previous owner. */
export async function lendTree(path: string, uid: number, gid: number): Promise<() => Promise<void>> {
  const st = await lstat(path);
  await chownTree(path, uid, gid);
  return () => chownTree(path, st.uid, st.gid);
}
