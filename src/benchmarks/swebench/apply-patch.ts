/**
 * Applying a model patch the way the named release of SWE-bench's harness
 * does (rules.ts `apply`): its strategies in its order, stopping at the first
 * that exits 0; 5.0.2 resets the tree between attempts and, when every
 * attempt failed, accepts a patch `git apply --check --reverse` finds already
 * applied; 4.1.0 does neither, so its `patch --batch` (no `--forward`)
 * applies a reversed patch backwards, as that release does. A patch naming a
 * path inside `.git` is refused before any attempt (patch-paths.ts says why).
 */
import { writeFile } from "node:fs/promises";
import { join } from "node:path";
import { runCommand, gitIn, type Tree } from "./git.js";
import { resetTree } from "./worktree.js";
import { gitDirPathIn } from "./patch-paths.js";
import { ruleSet, type ApplyStrategy, type RuleSet } from "./rules.js";

export type { ApplyStrategy } from "./rules.js";

/** How the patch went in: one of the release's strategies, or found already applied (5.0.2's reverse check). */
export type AppliedWith = ApplyStrategy | "already_applied";

export interface ApplyOutcome {
  applied: boolean;
  /** The strategy that worked, if any. */
  strategy: AppliedWith | null;
  /** Tail of the last attempt's diagnostics. */
  log: string;
}

/** The command line of each strategy, the patch file last (as the official harness runs them). */
export const APPLY_COMMANDS: Readonly<Record<ApplyStrategy, readonly string[]>> = {
  git_apply: ["git", "apply", "--verbose"],
  git_apply_3way: ["git", "apply", "--verbose", "--3way"],
  git_apply_reject: ["git", "apply", "--verbose", "--reject"],
  patch_fuzz: ["patch", "--batch", "--fuzz=5", "-p1", "-i"],
  patch_fuzz_forward: ["patch", "--batch", "--forward", "--fuzz=5", "-p1", "-i"],
};

/** The strategies of the default rules, in order. */
export const APPLY_STRATEGIES: readonly ApplyStrategy[] = ruleSet().apply.strategies;

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
  rules: RuleSet = ruleSet(),
): Promise<ApplyOutcome> {
  const forbidden = gitDirPathIn(patch);
  if (forbidden !== null)
    return {
      applied: false,
      strategy: null,
      log: `refused: the patch names a path inside .git (${JSON.stringify(forbidden)})`,
    };
  const file = join(scratchDir, name);
  await writeFile(file, normalisePatch(patch));
  let log = "";
  const { strategies, resetBetween, reverseCheck } = rules.apply;
  for (const [i, strategy] of strategies.entries()) {
    if (i > 0 && resetBetween) await resetTree(tree, "HEAD");
    const [cmd, ...args] = APPLY_COMMANDS[strategy];
    const r =
      cmd === "git" ? await gitIn(tree, [...args, file]) : await runCommand(cmd!, [...args, file], { cwd: tree.path });
    log = `${strategy}: ${(r.stderr + r.stdout).trim().slice(-1500)}`;
    if (r.exitCode === 0) return { applied: true, strategy, log };
  }
  if (reverseCheck) {
    const r = await gitIn(tree, ["apply", "--check", "--reverse", file]);
    if (r.exitCode === 0)
      return { applied: true, strategy: "already_applied", log: `${log}\nalready_applied: verified` };
  }
  await resetTree(tree, "HEAD");
  return { applied: false, strategy: null, log };
}
