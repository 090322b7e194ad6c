/**
 * Applying a model patch the way SWE-bench's harness does: several strategies
 * in order, stopping at the first that applies cleanly. Between attempts the
 * worktree is reset, so a partial application never leaks into the next.
 */
import { writeFile } from "node:fs/promises";
import { join } from "node:path";
import { runCommand, git } from "./git.js";
import { resetWorktree } from "./worktree.js";

export type ApplyStrategy = "git_apply" | "git_apply_3way" | "patch_fuzz";

export interface ApplyOutcome {
  applied: boolean;
  /** The strategy that worked, if any. */
  strategy: ApplyStrategy | null;
  /** Tail of the last attempt's diagnostics. */
  log: string;
}

/** Order follows SWE-bench (`git apply`, then more lenient tools); `--3way` uses the base blobs. */
export const APPLY_STRATEGIES: readonly ApplyStrategy[] = ["git_apply", "git_apply_3way", "patch_fuzz"];

/** Make sure a diff ends with a newline (git apply rejects a truncated last line). */
export function normalisePatch(patch: string): string {
  return patch.endsWith("\n") ? patch : patch + "\n";
}

/**
 * Apply `patch` to the worktree at `dir`. `scratchDir` receives the patch
 * file (outside the worktree so it never becomes part of the tree).
 */
export async function applyPatch(dir: string, patch: string, scratchDir: string, name = "model.patch"): Promise<ApplyOutcome> {
  const file = join(scratchDir, name);
  await writeFile(file, normalisePatch(patch));
  let log = "";
  for (const strategy of APPLY_STRATEGIES) {
    const r =
      strategy === "git_apply"
        ? await git(dir, ["apply", "--verbose", file])
        : strategy === "git_apply_3way"
          ? await git(dir, ["apply", "--verbose", "--3way", file])
          : await runCommand("patch", ["--batch", "--fuzz=5", "-p1", "-i", file], { cwd: dir });
    log = `${strategy}: ${(r.stderr + r.stdout).trim().slice(-1500)}`;
    if (r.exitCode === 0) {
      // --3way stages its result; unstage so the tree looks like a plain apply.
      if (strategy === "git_apply_3way") await git(dir, ["reset", "--quiet"]);
      return { applied: true, strategy, log };
    }
    await resetWorktree(dir);
  }
  return { applied: false, strategy: null, log };
}
