/**
 * How a SWE-bench instance gets its tree at `base_commit` (config `checkout`):
 * - `worktree` (default): a git worktree sharing the repository's object store.
 *   Nothing but the tree is written, but git records the worktree under the
 *   repository's `.git/worktrees/`, so the repository must be writable.
 * - `clone`: a local `git clone --no-hardlinks --no-checkout` then a checkout.
 *   It copies the object store per instance and leaves the repository untouched,
 *   so it works on a read-only `repos_dir`.
 */
import { rm } from "node:fs/promises";
import { dirname } from "node:path";
import { gitOk } from "./git.js";
import { addWorktree, removeWorktree } from "./worktree.js";

export type CheckoutKind = "worktree" | "clone";

export interface Checkout {
  /** Make `path` (which must not exist) a tree of `repoDir` at `commit`. */
  add(repoDir: string, path: string, commit: string): Promise<void>;
  /** Remove what `add` made; tolerant of partial state. */
  remove(repoDir: string, path: string): Promise<void>;
}

const clone: Checkout = {
  async add(repoDir, path, commit) {
    await gitOk(dirname(path), ["clone", "--quiet", "--no-hardlinks", "--no-checkout", repoDir, path]);
    await gitOk(path, ["checkout", "--quiet", "--detach", commit]);
  },
  async remove(_repoDir, path) {
    await rm(path, { recursive: true, force: true });
  },
};

const worktree: Checkout = { add: addWorktree, remove: removeWorktree };

/** The checkout strategy for `kind` (default `worktree`). */
export function checkoutFor(kind: CheckoutKind | undefined): Checkout {
  return kind === "clone" ? clone : worktree;
}
