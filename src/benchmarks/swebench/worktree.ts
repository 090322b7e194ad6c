/**
 * A fresh `git worktree` per instance at its base commit. Worktrees (not
 * clones) share the object store, so they are cheap and need no network.
 * Adding/removing worktrees of one repository is serialised in-process
 * because both update the repository's `worktrees/` administrative files.
 */
import { rm } from "node:fs/promises";
import { gitOk, git } from "./git.js";

const repoLocks = new Map<string, Promise<unknown>>();

/** Run `fn` after every earlier call for the same repository has finished. */
function withRepoLock<T>(repoDir: string, fn: () => Promise<T>): Promise<T> {
  const prev = repoLocks.get(repoDir) ?? Promise.resolve();
  const next = prev.then(fn, fn);
  repoLocks.set(repoDir, next.catch(() => undefined));
  return next;
}

/** Create a detached worktree of `repoDir` at `commit` in `path` (which must not exist). */
export async function addWorktree(repoDir: string, path: string, commit: string): Promise<void> {
  await withRepoLock(repoDir, async () => {
    await gitOk(repoDir, ["worktree", "add", "--detach", "--force", path, commit]);
  });
}

/** Remove a worktree and its administrative files; tolerant of partial state. */
export async function removeWorktree(repoDir: string, path: string): Promise<void> {
  await withRepoLock(repoDir, async () => {
    const removed = await git(repoDir, ["worktree", "remove", "--force", "--force", path]);
    await rm(path, { recursive: true, force: true });
    // A successful remove already deleted the administrative files; prune (one more
    // git process per instance) only mops up after a failed or partial one.
    if (removed.exitCode !== 0) await git(repoDir, ["worktree", "prune"]);
  });
}

/** Put the worktree back to its HEAD exactly (after a failed patch attempt). */
export async function resetWorktree(path: string): Promise<void> {
  await gitOk(path, ["reset", "--hard", "--quiet", "HEAD"]);
  await gitOk(path, ["clean", "-fdxq"]);
}
