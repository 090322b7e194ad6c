/**
 * Host directories a dropped-privilege program must write (a work dir, a
 * writable bind) are lent to the sandbox uid for the duration of one exec and
 * given back afterwards: every entry, including ones the program created, is
 * chowned back to the owner the directory had before.
 */
import { lchown, lstat, readdir } from "node:fs/promises";
import { join } from "node:path";

async function chownTree(path: string, uid: number, gid: number): Promise<void> {
  const st = await lstat(path);
  await lchown(path, uid, gid);
  if (st.isDirectory()) {
    for (const name of await readdir(path)) await chownTree(join(path, name), uid, gid);
  }
}

/** Chown `path` recursively to uid/gid; returns the function that restores the previous owner. */
export async function lendTree(path: string, uid: number, gid: number): Promise<() => Promise<void>> {
  const st = await lstat(path);
  await chownTree(path, uid, gid);
  return () => chownTree(path, st.uid, st.gid);
}

