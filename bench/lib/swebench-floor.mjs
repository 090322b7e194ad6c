/**
 * Row 8's floor, measured piece by piece in this process (medians, sandbox
 * concurrency 1 so the pieces do not overlap): the runner's whole
 * per-instance evaluate() with the gold predictions (one after another, so
 * after the first each instance reuses the worktree), the sandboxed test run
 * alone on a prepared worktree, and what that run is made of (bwrap + bash,
 * python start-up, `import pytest`), plus the per-process costs (node start,
 * CLI load, the sandbox's isolation probe).
 */
import { mkdirSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { CLI, DIST } from "./paths.mjs";
import { run } from "./proc.mjs";
import { measure, measureReported, median } from "./stats.mjs";

const imp = (p) => import(join(DIST, p));
const { createSwebenchBenchmark } = await imp("benchmarks/swebench/definition.js");
const { locateRepo } = await imp("benchmarks/swebench/repo-locator.js");
const { addWorktree, removeWorktree } = await imp("benchmarks/swebench/worktree.js");
const { applyPatch } = await imp("benchmarks/swebench/apply-patch.js");
const { testSpecFor } = await imp("benchmarks/swebench/test-spec.js");
const { createSandbox } = await imp("sandbox/index.js");
const { probeIsolation } = await imp("sandbox/local/probe.js");
const { silentLogger } = await imp("util/logger.js");
const { resolveRunOptions } = await imp("runner/options.js");
const { offeredInteractions } = await imp("benchmarks/index.js");

/**
 * Measure the pieces for the sample set `ds` with predictions file `preds`,
 * scratch space under `tmp`. Resolves medians in ms.
 */
export async function measureFloor(ds, preds, tmp, { runs = 5 } = {}) {
  const sandbox = await createSandbox({ backend: "local", logger: silentLogger(), concurrency: 1 });
  const out = {};
  try {
    // The runner's own per-instance evaluation (worktree, both patches, sandboxed tests, grading, artifacts, removal).
    const bench = createSwebenchBenchmark();
    // Resolved as every entry resolves a run's options (the schema's defaults applied).
    const options = resolveRunOptions(
      offeredInteractions,
      { benchmark: "swebench", run_id: "floor", dataset: "sample", predictions: preds, per_task_timeout_seconds: 60 },
      { out: join(tmp, "floor-out") },
    );
    let n = 0;
    out.evaluate = await measureReported(
      async () => {
        const inst = ds.instances[n++ % ds.instances.length];
        const t0 = performance.now();
        const row = await bench.evaluate(
          { id: inst.instance_id, instance: inst },
          {
            options,
            sandbox,
            participant: null,
            logger: silentLogger(),
            signal: new AbortController().signal,
            workDir: join(tmp, "floor-work"),
          },
        );
        const ms = performance.now() - t0;
        if (row.status !== "RESOLVED_FULL") throw new Error(`floor: ${inst.instance_id} ${row.status} ${row.error}`);
        return ms;
      },
      { warmup: 1, runs: runs * ds.instances.length },
    );
    await bench.endRun({ options, logger: silentLogger(), workDir: join(tmp, "floor-work") });

    // The sandboxed test run alone, on a worktree already patched (gold + test_patch).
    const inst = ds.instances[0];
    const repoDir = locateRepo(ds.reposDir, inst.repo);
    const scratch = join(tmp, "floor-wt");
    mkdirSync(scratch, { recursive: true });
    const tree = await addWorktree(repoDir, join(scratch, "repo"), inst.base_commit);
    const wt = tree.path;
    try {
      if (!(await applyPatch(tree, inst.patch, scratch)).applied) throw new Error("floor: gold patch does not apply");
      writeFileSync(join(scratch, "test.patch"), inst.test_patch);
      const r = await run("git", ["-C", wt, "apply", join(scratch, "test.patch")]);
      if (r.code !== 0) throw new Error(`floor: test_patch: ${r.stderr}`);
      const spec = testSpecFor(inst);
      // Round-robin over the four commands, run by run, so load from other jobs hits each alike
      // and the pieces stay comparable (each is a prefix of the next).
      const cmds = {
        tests: spec.command,
        bash: "true",
        python: "python3 -c pass",
        importPytest: "python3 -c 'import pytest'",
      };
      const samples = Object.fromEntries(Object.keys(cmds).map((k) => [k, []]));
      for (let i = 0; i < 1 + runs; i++) {
        for (const [k, code] of Object.entries(cmds)) {
          const t0 = performance.now();
          const o = await sandbox.exec({
            language: "bash",
            code,
            timeoutMs: 60_000,
            workDir: wt,
            env: { ...spec.env },
          });
          if (o.exitCode !== 0) throw new Error(`floor: ${code}: exit ${o.exitCode} ${o.stderrTail.slice(-300)}`);
          if (i > 0) samples[k].push(performance.now() - t0);
        }
      }
      for (const [k, s] of Object.entries(samples)) out[k] = { median: median(s), min: Math.min(...s) };
    } finally {
      await removeWorktree(repoDir, tree);
    }
  } finally {
    await sandbox.close();
    rmSync(join(tmp, "floor-out"), { recursive: true, force: true });
  }
  // Per process: node itself, node + the `run` command's modules (`run --help`), the isolation probe.
  out.node = await measure(() => run(process.execPath, ["-e", ""]), { warmup: 1, runs });
  out.cliLoad = await measure(() => run(process.execPath, [CLI, "run", "--help"]), { warmup: 1, runs });
  out.probe = await measure(() => probeIsolation(), { warmup: 1, runs });
  return out;
}
