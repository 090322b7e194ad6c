/**
 * Checkout cost per SWE-bench instance, the ways the harness can get a tree
 * at base_commit (dist functions, as `run swebench` calls them):
 * - a new worktree, add + remove (an instance with no idle tree to reuse);
 * - a reused worktree reset to another base commit (`resetTree`: content
 *   re-read, clean, reset, status check), what every later instance of the
 *   same repository pays by default;
 * - the clone baseline's steps (the runner's `--checkout clone`: `git clone
 *   --no-hardlinks --no-checkout --separate-git-dir`, `git checkout --detach
 *   <commit>`, rm -rf).
 * Runs are interleaved (rotating which goes first) so page-cache warmth and
 * other jobs on the shared box hit all alike.
 */
import { mkdirSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { DIST } from "./paths.mjs";
import { run } from "./proc.mjs";
import { median } from "./stats.mjs";

const { addWorktree, removeWorktree, resetTree } = await import(join(DIST, "benchmarks/swebench/worktree.js"));

async function gitOk(args) {
  const r = await run("git", args);
  if (r.code !== 0) throw new Error(`git ${args.join(" ")}: exit ${r.code}: ${r.stderr.slice(-300)}`);
}

/** One worktree add + remove of `repoDir` at `commit` under `scratch`; ms. */
export async function worktreeOnce(repoDir, commit, scratch) {
  const path = join(scratch, "wt");
  const t0 = performance.now();
  const tree = await addWorktree(repoDir, path, commit);
  await removeWorktree(repoDir, tree);
  return performance.now() - t0;
}

/** One clone + checkout + rm -rf of `repoDir` at `commit` under `scratch`; ms. */
export async function cloneOnce(repoDir, commit, scratch) {
  const path = join(scratch, "cl");
  const t0 = performance.now();
  await gitOk(["clone", "--quiet", "--no-hardlinks", "--no-checkout", `--separate-git-dir=${path}.git`, repoDir, path]);
  await gitOk(["--git-dir", `${path}.git`, "--work-tree", path, "checkout", "--quiet", "--detach", commit]);
  rmSync(path, { recursive: true, force: true });
  rmSync(`${path}.git`, { recursive: true, force: true });
  return performance.now() - t0;
}

/**
 * Interleaved medians: `warmup` unmeasured rounds, then `runs` measured ones.
 * With `other` (a second commit), also a reused worktree reset alternately
 * to `other` and `commit`, each reset timed. Resolves { worktree, clone,
 * reuse? } as {median, min, samples} in ms.
 */
export async function compareCheckout(repoDir, commit, scratch, { warmup = 1, runs = 5, other = null } = {}) {
  const samples = { worktree: [], clone: [], reuse: [] };
  const kept = other ? await addWorktree(repoDir, join(scratch, "kept"), commit) : null;
  let target = other;
  const ways = {
    worktree: () => worktreeOnce(repoDir, commit, scratch),
    clone: () => cloneOnce(repoDir, commit, scratch),
    reuse: async () => {
      const t0 = performance.now();
      await resetTree(kept, target);
      const ms = performance.now() - t0;
      target = target === other ? commit : other;
      return ms;
    },
  };
  const names = kept ? ["worktree", "clone", "reuse"] : ["worktree", "clone"];
  try {
    for (let i = 0; i < warmup + runs; i++) {
      const order = names.map((_, j) => names[(i + j) % names.length]);
      for (const name of order) {
        const ms = await ways[name]();
        if (i >= warmup) samples[name].push(ms);
      }
    }
  } finally {
    if (kept) await removeWorktree(repoDir, kept);
  }
  const sum = (s) => ({ median: median(s), min: Math.min(...s), samples: s });
  return { worktree: sum(samples.worktree), clone: sum(samples.clone), ...(kept ? { reuse: sum(samples.reuse) } : {}) };
}

/**
 * The floor under both: creating the tree's files on this disk. Writes `n`
 * files of `bytes` each (50 per directory, like the synthetic repos) under
 * `scratch` and removes them; resolves ms per file (median of `runs`).
 */
export function fileWriteCost(scratch, { n = 500, bytes = 1400, runs = 3 } = {}) {
  const body = "x".repeat(bytes);
  const perFile = [];
  for (let r = 0; r < runs; r++) {
    const root = join(scratch, `files-${r}`);
    const t0 = performance.now();
    for (let i = 0; i < n; i++) {
      const dir = join(root, `d${Math.floor(i / 50)}`);
      if (i % 50 === 0) mkdirSync(dir, { recursive: true });
      writeFileSync(join(dir, `f${i}.py`), body);
    }
    perFile.push((performance.now() - t0) / n);
    rmSync(root, { recursive: true, force: true });
  }
  return median(perFile);
}
