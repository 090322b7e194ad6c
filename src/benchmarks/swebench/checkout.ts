/**
 * How a SWE-bench instance gets its tree at `base_commit` (config `checkout`):
 * - `worktree` (default): git worktrees sharing the repository's object
 *   store, kept for reuse within a run. A worktree an instance is done with
 *   goes back to an idle list; the next instance of the same repository
 *   resets it to its own base commit ({@link resetTree}), so git rewrites only
 *   the files that differ instead of the whole tree. At most `maxIdle` trees
 *   wait at once, over all repositories (the one released longest ago goes
 *   first), so disk use stays that of `maxIdle` + in-use trees whatever the
 *   number of repositories. Git records worktrees
 *   under the repository's `.git/worktrees/`, so the repository must be
 *   writable.
 * - `clone`: a fresh local `git clone --no-hardlinks --no-checkout` per
 *   instance (git directory kept outside the tree), then a checkout. It copies
 *   the object store each time and leaves the repository untouched, so it
 *   works on a read-only `repos_dir`.
 *
 * Either way the instance gets a {@link Tree} whose git directory lies outside
 * what untrusted code can write.
 */
import { mkdir } from "node:fs/promises";
import { dirname, join } from "node:path";
import { removeTree } from "../../sandbox/remove-tree.js";
import type { Logger } from "../../util/logger.js";
import { errorMessage } from "../../util/errors.js";
import { gitOk, gitInOk, type Tree } from "./git.js";
import { NO_BACKGROUND_GIT } from "./git-background.js";
import { addWorktree, removeWorktree, resetTree } from "./worktree.js";

export type CheckoutKind = "worktree" | "clone";

export interface Checkout {
  /** A tree of `repoDir` at `commit`, for one instance's exclusive use. */
  acquire(repoDir: string, commit: string): Promise<Tree>;
  /**
   * The instance is done with `tree`. `reusable` false (e.g. it was
   * cancelled mid-way) removes it instead of keeping it for the next one.
   */
  release(repoDir: string, tree: Tree, reusable: boolean): Promise<void>;
  /** Remove every tree still kept; the run is over. */
  close(): Promise<void>;
}

/** Counts trees made in this process, so names never collide between runs sharing a root. */
let made = 0;
function nextPath(root: string, prefix: string): string {
  made += 1;
  return join(root, `${prefix}${made}-${process.pid}`);
}

function cloneCheckout(root: string): Checkout {
  return {
    async acquire(repoDir, commit) {
      const base = nextPath(root, "clone");
      const tree: Tree = { path: join(base, "tree"), gitDir: join(base, "git") };
      await mkdir(base, { recursive: true });
      try {
        await gitOk(base, [
          "clone",
          "--quiet",
          "--no-hardlinks",
          "--no-checkout",
          `--separate-git-dir=${tree.gitDir}`,
          repoDir,
          tree.path,
        ]);
        // A clone is ours: git's background work off in its config too (git-background.ts).
        for (const [key, value] of NO_BACKGROUND_GIT) await gitInOk(tree, ["config", key, value]);
        await gitInOk(tree, ["checkout", "--quiet", "--detach", commit]);
      } catch (err) {
        await removeTree(base);
        throw err;
      }
      return tree;
    },
    async release(_repoDir, tree) {
      await removeTree(dirname(tree.path));
    },
    async close() {
      await removeTree(root);
    },
  };
}

function worktreeCheckout(root: string, logger: Logger, maxIdle: number): Checkout {
  /** Idle trees per repository directory. */
  const idle = new Map<string, Tree[]>();
  /** Every idle tree, oldest release first, for eviction. */
  const idleOrder: Array<{ repoDir: string; tree: Tree }> = [];
  const takeIdle = (repoDir: string): Tree | undefined => {
    const tree = idle.get(repoDir)?.pop();
    if (tree)
      idleOrder.splice(
        idleOrder.findIndex((e) => e.tree === tree),
        1,
      );
    return tree;
  };
  /** Every tree made and not removed, for close(). */
  const live = new Map<string, { repoDir: string; tree: Tree }>();
  const remove = async (repoDir: string, tree: Tree): Promise<void> => {
    live.delete(tree.path);
    await removeWorktree(repoDir, tree);
  };
  return {
    async acquire(repoDir, commit) {
      for (let tree = takeIdle(repoDir); tree; tree = takeIdle(repoDir)) {
        try {
          await resetTree(tree, commit);
          return tree;
        } catch (err) {
          logger.warn(
            { tree: tree.path, err: errorMessage(err) },
            "worktree could not be reset for reuse; removing it",
          );
          await remove(repoDir, tree).catch(() => undefined);
        }
      }
      await mkdir(root, { recursive: true });
      const path = nextPath(root, "wt");
      const tree = await addWorktree(repoDir, path, commit);
      live.set(tree.path, { repoDir, tree });
      return tree;
    },
    async release(repoDir, tree, reusable) {
      if (!reusable || !live.has(tree.path)) {
        await remove(repoDir, tree);
        return;
      }
      const list = idle.get(repoDir) ?? [];
      list.push(tree);
      idle.set(repoDir, list);
      idleOrder.push({ repoDir, tree });
      while (idleOrder.length > maxIdle) {
        const oldest = idleOrder.shift()!;
        const from = idle.get(oldest.repoDir)!;
        from.splice(from.indexOf(oldest.tree), 1);
        await remove(oldest.repoDir, oldest.tree);
      }
    },
    async close() {
      idle.clear();
      idleOrder.length = 0;
      const all = [...live.values()];
      await Promise.all(all.map(({ repoDir, tree }) => remove(repoDir, tree).catch(() => undefined)));
      await removeTree(root);
    },
  };
}

/**
 * The checkout strategy for `kind` (default `worktree`); its trees live under
 * `root`, and at most `maxIdle` (≥ 1) wait for reuse.
 */
export function createCheckout(kind: CheckoutKind | undefined, root: string, logger: Logger, maxIdle = 1): Checkout {
  return kind === "clone" ? cloneCheckout(root) : worktreeCheckout(root, logger, Math.max(1, maxIdle));
}
