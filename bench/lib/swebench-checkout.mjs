/**
 * Checkout cost per SWE-bench instance, the two ways the harness could get a
 * fresh tree at base_commit: the runner's own worktree add + remove (dist
 * functions, as `run swebench` calls them) vs the clone baseline's steps
 * (the runner's `--checkout clone`: `git clone --no-hardlinks
 * --no-checkout`, `git checkout --detach <commit>`, rm -rf). Runs are
 * interleaved (alternating which goes first) so page-cache warmth and other
 * jobs on the shared box hit both alike.
 */
import { mkdirSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { DIST } from "./paths.mjs";
import { run } from "./proc.mjs";
import { median } from "./stats.mjs";

const { addWorktree, removeWorktree } = await import(join(DIST, "benchmarks/swebench/worktree.js"));

async function gitOk(args) {
  const r = await run("git", args);
  if (r.code !== 0) throw new Error(`git ${args.join(" ")}: exit ${r.code}: ${r.stderr.slice(-300)}`);
}

/** One worktree add + remove of `repoDir` at `commit` under `scratch`; ms. */
export async function worktreeOnce(repoDir, commit, scratch) {
  const path = join(scratch, "wt");
  const t0 = performance.now();
  await addWorktree(repoDir, path, commit);
  await removeWorktree(repoDir, path);
  return performance.now() - t0;
}

/** One clone + checkout + rm -rf of `repoDir` at `commit` under `scratch`; ms. */
export async function cloneOnce(repoDir, commit, scratch) {
  const path = join(scratch, "cl");
  const t0 = performance.now();
  await gitOk(["clone", "--quiet", "--no-hardlinks", "--no-checkout", repoDir, path]);
  await gitOk(["-C", path, "checkout", "--quiet", "--detach", commit]);
  rmSync(path, { recursive: true, force: true });
  return performance.now() - t0;
}

/**
 * Interleaved medians: `warmup` unmeasured pairs, then `runs` measured pairs.
 * Resolves { worktree: {median, min, samples}, clone: {...} } in ms.
 */
export async function compareCheckout(repoDir, commit, scratch, { warmup = 1, runs = 5 } = {}) {
  const wt = [];
  const cl = [];
  for (let i = 0; i < warmup + runs; i++) {
    let w;
    let c;
    if (i % 2 === 0) {
      w = await worktreeOnce(repoDir, commit, scratch);
      c = await cloneOnce(repoDir, commit, scratch);
    } else {
      c = await cloneOnce(repoDir, commit, scratch);
      w = await worktreeOnce(repoDir, commit, scratch);
    }
    if (i >= warmup) { wt.push(w); cl.push(c); }
  }
  const sum = (s) => ({ median: median(s), min: Math.min(...s), samples: s });
  return { worktree: sum(wt), clone: sum(cl) };
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
