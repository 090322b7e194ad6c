/**
 * The files of one commit, exported from a clone on the host into a fresh
 * directory with no `.git`: what an environment without an image starts
 * from (episode.ts). Nothing of the history goes along (a worktree's `.git`
 * file would point at the shared clone, every later commit included). Git's
 * own checkout writes the files (modes, symlinks, the repository's
 * attributes), through a throw-away index, so the clone's index and
 * worktrees are untouched and concurrent instances do not meet.
 */
import { mkdir } from "node:fs/promises";
import { BenchError } from "../../util/errors.js";
import { git } from "./git.js";

/** Limit of one export step, ms (a large repository on a slow disk). */
const EXPORT_TIMEOUT_MS = 300_000;

/**
 * Write `commit`'s tracked files into `dest` (created; must not exist) using the index file `index`
 * (a scratch path); returns the commit's tree hash, which the environment's fresh commit is checked against.
 */
export async function exportCommitTree(repoDir: string, commit: string, dest: string, index: string): Promise<string> {
  await mkdir(dest);
  const env = { GIT_INDEX_FILE: index };
  const steps: Array<[string, string[]]> = [
    ["reading the base tree", ["read-tree", `${commit}^{tree}`]],
    ["writing the base tree's files", ["--work-tree", dest, "checkout-index", "--all", "--force"]],
  ];
  for (const [what, args] of steps) {
    const r = await git(repoDir, args, { env, timeoutMs: EXPORT_TIMEOUT_MS });
    if (r.exitCode !== 0)
      throw new BenchError("E_SWEBENCH_EPISODE", `${what} of ${commit}: ${r.stderr.trim().slice(-300)}`);
  }
  const tree = await git(repoDir, ["rev-parse", `${commit}^{tree}`]);
  if (tree.exitCode !== 0 || !/^[0-9a-f]{40,64}$/.test(tree.stdout.trim()))
    throw new BenchError("E_SWEBENCH_EPISODE", `the tree of ${commit}: ${tree.stderr.trim().slice(-300)}`);
  return tree.stdout.trim();
}
