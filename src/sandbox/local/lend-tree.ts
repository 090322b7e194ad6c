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
import { execFile } from "node:child_process";
import { lstat } from "node:fs/promises";
import { SandboxError } from "../errors.js";

function chownTree(path: string, uid: number, gid: number): Promise<void> {
  return new Promise((resolve, reject) => {
    execFile("chown", ["-R", "-h", `${uid}:${gid}`, "--", path], { timeout: 120_000 }, (err, _stdout, stderr) => {
      if (err)
        reject(
          new SandboxError(
            "E_SANDBOX_SETUP",
            `chown -R ${uid}:${gid} ${path} failed: ${String(stderr).trim() || err.message}`,
          ),
        );
      else resolve();
    });
  });
}

/** Chown `path` recursively to uid/gid; returns the function that restores the previous owner. */
export async function lendTree(path: string, uid: number, gid: number): Promise<() => Promise<void>> {
  const st = await lstat(path);
  await chownTree(path, uid, gid);
  return () => chownTree(path, st.uid, st.gid);
}
