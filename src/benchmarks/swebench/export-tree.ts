/**
 * One commit as a repository of its own, made on the host from a clone: what
 * an environment without an image starts from (episode.ts). The new
 * repository holds the commit object itself (so HEAD is the dataset's
 * `base_commit`, the same hash), its tree and blobs, and nothing else: it
 * is shallow at that commit (`.git/shallow` names it), so no parent and no
 * later commit is in it or reachable from it. Never a worktree's `.git`
 * file, which would point at the shared clone and its whole history.
 *
 * The objects are copied by `rev-list --objects --no-walk <commit>` into
 * `pack-objects --stdout | index-pack --stdin` in the new repository: no
 * transport, no ref in the clone, the same on every git. Git's checkout
 * writes the files (modes, symlinks). The clone is only read.
 */
import { mkdir, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { BenchError } from "../../util/errors.js";
import { git, runCommand } from "./git.js";
import { GIT_SHELL_FUNCTION, NO_BACKGROUND_GIT } from "./git-background.js";

/** Limit of one export step, ms (a large repository on a slow disk). */
const EXPORT_TIMEOUT_MS = 300_000;

/** The objects named on stdin, from the repository $1 into the repository $2, as one pack. */
const COPY_OBJECTS = `set -euo pipefail
${GIT_SHELL_FUNCTION}
git -c core.hooksPath=/dev/null -C "$1" pack-objects -q --stdout | git -c core.hooksPath=/dev/null -C "$2" index-pack --stdin >/dev/null
`;

/** The branch of a repository the harness makes. */
export const FRESH_BRANCH = "main";

/** What {@link exportCommitRepository} made: the commit (full hash) and its tree's hash. */
export interface ExportedCommit {
  commit: string;
  tree: string;
}

async function step(cwd: string, what: string, args: string[], input?: string): Promise<string> {
  const r = await git(cwd, args, { timeoutMs: EXPORT_TIMEOUT_MS, ...(input === undefined ? {} : { input }) });
  if (r.exitCode !== 0)
    throw new BenchError(
      "E_SWEBENCH_EPISODE",
      `${what}: ${r.timedOut ? "timed out" : `exit ${String(r.exitCode)}`}: ${r.stderr.trim().slice(-300)}`,
    );
  return r.stdout;
}

/**
 * Make `dest` (created; must not exist) a repository holding `commit` of `repoDir` alone, checked out on
 * branch {@link FRESH_BRANCH}, with git's background work off in its config.
 */
export async function exportCommitRepository(repoDir: string, commit: string, dest: string): Promise<ExportedCommit> {
  await mkdir(dest);
  const full = (await step(repoDir, `resolving ${commit}`, ["rev-parse", "--verify", `${commit}^{commit}`])).trim();
  const tree = (await step(repoDir, `the tree of ${commit}`, ["rev-parse", "--verify", `${full}^{tree}`])).trim();
  if (!/^[0-9a-f]{40,64}$/.test(full) || !/^[0-9a-f]{40,64}$/.test(tree))
    throw new BenchError("E_SWEBENCH_EPISODE", `${commit}: git named no commit and tree (${full} ${tree})`);
  await step(repoDir, "creating the repository", ["init", "-q", dest]);
  for (const [key, value] of NO_BACKGROUND_GIT) await step(dest, `setting ${key}`, ["config", key, value]);
  const objects = await step(repoDir, `listing the objects of ${full}`, ["rev-list", "--objects", "--no-walk", full]);
  // Streamed: the clone and `dest` may lie on different file systems (a pack written by the clone's git
  // would be renamed across them).
  const copied = await runCommand("bash", ["-c", COPY_OBJECTS, "copy-objects", repoDir, dest], {
    cwd: dest,
    input: objects,
    timeoutMs: EXPORT_TIMEOUT_MS,
  });
  if (copied.exitCode !== 0)
    throw new BenchError("E_SWEBENCH_EPISODE", `copying the objects of ${full}: ${copied.stderr.trim().slice(-300)}`);
  await writeFile(join(dest, ".git", "shallow"), `${full}\n`);
  await step(dest, "naming the branch", ["update-ref", `refs/heads/${FRESH_BRANCH}`, full]);
  await step(dest, "pointing HEAD at it", ["symbolic-ref", "HEAD", `refs/heads/${FRESH_BRANCH}`]);
  await step(dest, "reading the base tree", ["read-tree", full]);
  await step(dest, "writing the base tree's files", ["checkout-index", "--all", "--force"]);
  return { commit: full, tree };
}
