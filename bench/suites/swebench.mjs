/**
 * Row 8: SWE-bench embedded sample set with gold patches, whole process wall:
 * ours = `node dist/cli.js run swebench --dataset sample --predictions <gold>`
 * (a git worktree per instance) vs the bench-side clone-per-instance baseline
 * (bench/servers/swebench-clone-baseline.mjs: same steps, a fresh clone each).
 */
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { BENCH, CLI, DIST } from "../lib/paths.mjs";
import { measure, measureReported } from "../lib/stats.mjs";
import { run } from "../lib/proc.mjs";

const { ensureSampleDataset } = await import(join(DIST, "benchmarks/swebench/sample-dataset.js"));

export async function runSwebench(ctx) {
  const ds = await ensureSampleDataset();
  const tmp = mkdtempSync(join(tmpdir(), "a2a-bench-swe-"));
  try {
    const preds = join(tmp, "gold.jsonl");
    writeFileSync(preds, ds.instances.map((i) => JSON.stringify({ instance_id: i.instance_id, model_name_or_path: "gold", model_patch: i.patch })).join("\n") + "\n");
    const runs = ctx.quick ? 3 : 5;
    let k = 0;
    ctx.log("swebench: ours (worktrees)");
    const ours = await measureReported(async () => {
      const out = join(tmp, `run-${k++}`);
      const r = await run(process.execPath, [CLI, "run", "swebench", "--dataset", "sample", "--predictions", preds, "--per-task-timeout-seconds", "60", "--out", out, "--run-id", `b${k}`], { env: { ...process.env, LOG_LEVEL: "silent" } });
      const agg = JSON.parse(readFileSync(join(out, "results.json"), "utf8")).aggregate;
      if (r.code !== 0 || agg.resolved !== ds.instances.length) throw new Error(`swebench gold run: exit ${r.code}, resolved ${agg.resolved}: ${r.stderr.slice(-300)}`);
      rmSync(out, { recursive: true, force: true });
      return r.ms;
    }, { warmup: 1, runs });
    ctx.log("swebench: baseline (clone per instance)");
    const base = await measureReported(async () => {
      const r = await run(process.execPath, [join(BENCH, "servers", "swebench-clone-baseline.mjs"), "2"], { env: process.env });
      const res = JSON.parse(r.stdout.trim().split("\n").pop() ?? "{}");
      if (r.code !== 0 || res.resolved !== ds.instances.length) throw new Error(`clone baseline: exit ${r.code} ${r.stdout} ${r.stderr.slice(-300)}`);
      return r.ms;
    }, { warmup: 1, runs });
    // Checkout cost alone, per instance: worktree add+remove vs clone+rm (sequential, in this process).
    const inst = ds.instances[0];
    const { locateRepo } = await import(join(DIST, "benchmarks/swebench/repo-locator.js"));
    const repoDir = locateRepo(ds.reposDir, inst.repo);
    const wt = await measure(async () => {
      await run("git", ["-C", repoDir, "worktree", "add", "--detach", "--force", join(tmp, "wt"), inst.base_commit]);
      await run("git", ["-C", repoDir, "worktree", "remove", "--force", "--force", join(tmp, "wt")]);
    }, { warmup: 1, runs });
    const cl = await measure(async () => {
      await run("git", ["clone", "--quiet", "--no-hardlinks", "--no-checkout", repoDir, join(tmp, "cl")]);
      await run("git", ["-C", join(tmp, "cl"), "checkout", "--quiet", "--detach", inst.base_commit]);
      rmSync(join(tmp, "cl"), { recursive: true, force: true });
    }, { warmup: 1, runs });
    const ratio = ours.median / base.median;
    return [{
      id: "8", measure: `SWE-bench embedded set (${ds.instances.length} instances), gold predictions, whole process wall`,
      figures: `${ours.median.toFixed(0)} ms (min ${ours.min.toFixed(0)}) with worktrees`,
      baseline: `bench-side clone per instance (same steps): ${base.median.toFixed(0)} ms (min ${base.min.toFixed(0)})`,
      ratio, target: "≤ 0.5×", met: ratio <= 0.5,
      limit: `checkout alone: worktree add+remove ${wt.median.toFixed(0)} ms vs clone+checkout+rm ${cl.median.toFixed(0)} ms per instance on these tiny repos; the rest is the same for both: one bwrap sandbox + python + pytest start per instance (the floor), node + CLI module load`,
    }];
  } finally {
    rmSync(tmp, { recursive: true, force: true });
  }
}
