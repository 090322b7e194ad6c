/**
 * Applying a model patch the way SWE-bench's harness does: several strategies
 * in order, stopping at the first that applies cleanly. Between attempts the
 * worktree is reset, so a partial application never leaks into the next. A
 * patch naming a path inside `.git` is refused before any attempt
 * (patch-paths.ts says why).
 */
import { writeFile } from "node:fs/promises";
import { join } from "node:path";
import { runCommand, gitIn, type Tree } from "./git.js";
import { resetTree } from "./worktree.js";
import { gitDirPathIn } from "./patch-paths.js";

export type ApplyStrategy = "git_apply" | "git_apply_reject" | "patch_fuzz";

export interface ApplyOutcome {
  applied: boolean;
  /** The strategy that worked, if any. */
  strategy: ApplyStrategy | null;
  /** Tail of the last attempt's diagnostics. */
  log: string;
}

/**
 * The official harness's order (run_evaluation.py `GIT_APPLY_CMDS`): `git apply --verbose`,
 * `git apply --verbose --reject` (exits 0 only when every hunk applied), `patch --batch --fuzz=5 -p1`.
 */
export const APPLY_STRATEGIES: readonly ApplyStrategy[] = ["git_apply", "git_apply_reject", "patch_fuzz"];

/** Make sure a diff ends with a newline (git apply rejects a truncated last line). */
export function normalisePatch(patch: string): string {
  return patch.endsWith("\n") ? patch : patch + "\n";
}

/**
 * Apply `patch` to `tree`. `scratchDir` receives the patch file (outside the
 * tree so it never becomes part of it).
 */
export async function applyPatch(
  tree: Tree,
  patch: string,
  scratchDir: string,
  name = "model.patch",
): Promise<ApplyOutcome> {
  const forbidden = gitDirPathIn(patch);
  if (forbidden !== null)
    return {
      applied: false,
      strategy: null,
      log: `refused: the patch names a path inside .git (${JSON.stringify(forbidden)})`,
    };
  const dir = tree.path;
  const file = join(scratchDir, name);
  await writeFile(file, normalisePatch(patch));
  let log = "";
  for (const strategy of APPLY_STRATEGIES) {
    const r =
      strategy === "git_apply"
        ? await gitIn(tree, ["apply", "--verbose", file])
        : strategy === "git_apply_reject"
          ? await gitIn(tree, ["apply", "--verbose", "--reject", file])
          : await runCommand("patch", ["--batch", "--fuzz=5", "-p1", "-i", file], { cwd: dir });
    log = `${strategy}: ${(r.stderr + r.stdout).trim().slice(-1500)}`;
    if (r.exitCode === 0) return { applied: true, strategy, log };
    await resetTree(tree, "HEAD");
  }
  return { applied: false, strategy: null, log };
}
