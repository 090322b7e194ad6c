/**
 * Git worktrees of a repository: created at a commit, reset to another one
 * for reuse, removed. Worktrees (not clones) share the object store, so they
 * are cheap and need no network. Adding/removing worktrees of one repository
 * is serialised, in-process and across processes (two runs on the same
 * repositories, e.g. two assessments of the embedded set at once), because
 * both update the repository's `worktrees/` administrative files and
 * `git worktree add` fails on another worktree's half-written ones.
 */
import { mkdir, readFile, rm, stat, writeFile } from "node:fs/promises";
import { existsSync } from "node:fs";
import { isAbsolute, join, resolve } from "node:path";
import { removeTree } from "../../sandbox/remove-tree.js";
import { gitOk, git, gitIn, gitInOk, type Tree } from "./git.js";

const repoLocks = new Map<string, Promise<unknown>>();

/** A cross-process lock older than this is taken to belong to a process that died holding it (ms). */
export const STALE_LOCK_MS = 30_000;
/** How long to wait for another process's worktree operation before giving up (ms). */
export const LOCK_WAIT_MS = 120_000;

/** Hold `<git dir>/a2a-bench-worktrees.lock` (an atomic mkdir) around `fn`. */
async function withProcessLock<T>(repoDir: string, fn: () => Promise<T>): Promise<T> {
  const gitDir = existsSync(join(repoDir, ".git")) ? join(repoDir, ".git") : repoDir;
  const lock = join(gitDir, "a2a-bench-worktrees.lock");
  const deadline = Date.now() + LOCK_WAIT_MS;
  for (;;) {
    try {
      await mkdir(lock);
      break;
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code !== "EEXIST") throw err;
      const age = await stat(lock).then(
        (st) => Date.now() - st.mtimeMs,
        () => 0,
      );
      if (age > STALE_LOCK_MS) await rm(lock, { recursive: true, force: true });
      else if (Date.now() > deadline)
        throw new Error(`${lock}: held by another process for over ${LOCK_WAIT_MS / 1000} s`);
      else await new Promise((r) => setTimeout(r, 10 + Math.random() * 40));
    }
  }
  try {
    return await fn();
  } finally {
    await rm(lock, { recursive: true, force: true });
  }
}

/** Run `fn` after every earlier call for the same repository has finished, in this process and in others. */
function withRepoLock<T>(repoDir: string, fn: () => Promise<T>): Promise<T> {
  const locked = (): Promise<T> => withProcessLock(repoDir, fn);
  const prev = repoLocks.get(repoDir) ?? Promise.resolve();
  const next = prev.then(locked, locked);
  repoLocks.set(
    repoDir,
    next.catch(() => undefined),
  );
  return next;
}

/**
 * Create a detached worktree of `repoDir` at `commit` in `path` (which must
 * not exist). Its git directory is read from the `.git` pointer git just
 * wrote, before anything untrusted has touched the tree.
 */
export async function addWorktree(repoDir: string, path: string, commit: string): Promise<Tree> {
  await withRepoLock(repoDir, async () => {
    await gitOk(repoDir, ["worktree", "add", "--detach", "--force", path, commit]);
  });
  const pointer = (await readFile(join(path, ".git"), "utf8")).trim();
  const m = /^gitdir: (.+)$/.exec(pointer);
  if (!m) throw new Error(`git worktree add wrote an unexpected ${join(path, ".git")}: ${pointer.slice(0, 200)}`);
  const gitDir = isAbsolute(m[1]!) ? m[1]! : resolve(path, m[1]!);
  return { path, gitDir };
}

/** Remove a worktree and its administrative files; tolerant of partial state. */
export async function removeWorktree(repoDir: string, tree: Tree): Promise<void> {
  await withRepoLock(repoDir, async () => {
    // From the repository, with --force twice: git neither checks the tree for changes nor reads its `.git`.
    const removed = await git(repoDir, ["worktree", "remove", "--force", "--force", tree.path]);
    // What git could not remove (a tree deeper than PATH_MAX, directories without permissions) goes here.
    await removeTree(tree.path);
    // A successful remove already deleted the administrative files; prune (one more
    // git process per instance) only mops up after a failed or partial one.
    if (removed.exitCode !== 0) await git(repoDir, ["worktree", "prune"]);
  });
}

/**
 * Remove every untracked directory of the tree (ignored ones too) with the harness's removal routine, before
 * `git clean`: git walks by full path and cannot remove what a program nested deeper than PATH_MAX, nor enter
 * a directory left without permissions. `--directory` lists each untracked directory once, without entering it.
 */
async function removeUntrackedDirs(tree: Tree): Promise<void> {
  const listed = await gitInOk(tree, ["ls-files", "--others", "--directory", "-z"]);
  for (const entry of listed.split("\0"))
    if (entry.endsWith("/") && entry !== "/") await removeTree(join(tree.path, entry.slice(0, -1)));
}

/**
 * Put a tree back to `commit` exactly, after untrusted code has had it:
 * restore the `.git` pointer, re-read every tracked file's content, remove
 * every untracked and ignored file (nested repositories too), reset tracked
 * files and the index, then check that `git status` sees nothing.
 *
 * The content re-read is what makes this safe. Git normally trusts a file
 * whose size, mtime and ctime match the index; a program can restore a file's
 * mtime, and this git compares ctime only to the second, so an edit made in
 * the second the index was written would pass as unchanged. `read-tree`
 * drops the index's stat data and `update-index --refresh` then hashes each
 * file: reading the tree once, which costs far less than writing it.
 * Throws if the tree cannot be made clean.
 */
export async function resetTree(tree: Tree, commit: string): Promise<void> {
  const pointer = join(tree.path, ".git");
  // A plain repository (its git directory is the tree's `.git`) has no pointer to restore.
  if (resolve(tree.gitDir) !== resolve(pointer)) {
    await removeTree(pointer);
    await writeFile(pointer, `gitdir: ${tree.gitDir}\n`);
  }
  await removeUntrackedDirs(tree);
  await gitInOk(tree, ["read-tree", "HEAD"]);
  // Exit 1 only says some file differs: that is what the reset below is for.
  await gitIn(tree, ["update-index", "-q", "--refresh"]);
  await gitInOk(tree, ["clean", "-ffdxq"]);
  await gitInOk(tree, ["reset", "--hard", "--quiet", commit]);
  const dirty = await gitInOk(tree, ["status", "--porcelain", "--ignored", "--untracked-files=all"]);
  if (dirty.trim() !== "")
    throw new Error(`tree ${tree.path} is not clean after reset: ${dirty.trim().split("\n").slice(0, 5).join("; ")}`);
}
