/**
 * Rows 15-15b: shards (src/shards/).
 *
 * 15:  throughput of `run humaneval --shards N` (local runner processes, merged) at 1, 2 and 4 workers on
 *      sleep-bound items: the participant (a gold purple served by this process) waits SLEEP_MS before each
 *      answer, each shard runs one item at a time (`--concurrency 1 --participant-concurrency 1`), so N workers
 *      keep N items in flight; ITEMS items of the official HumanEval set. Whole process wall, spawn → exit,
 *      the three widths rotated within each repetition; the ratio is against the 1-worker run of the same bench run.
 * 15b: the merge's own cost: `mergeShards` over the 4 shards of the last 4-worker run (read and verify every
 *      checkpoint line, read the dataset again, write the merged results), in process, per item.
 */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { spawn } from "node:child_process";
import { CLI, DIST } from "../lib/paths.mjs";
import { median, summary } from "../lib/stats.mjs";

const imp = (p) => import(join(DIST, p));
const { serveApp } = await imp("a2a/server/serve.js");
const { cardFromToml } = await imp("a2a/shared/card.js");
const { createPurpleApp } = await imp("purple/app.js");
const { createSingleShotGoldSolver } = await imp("purple/solvers/gold.js");
const { mergeShards } = await imp("shards/merge.js");
const { silentLogger } = await imp("util/logger.js");

/** What the participant waits before each answer, ms. */
const SLEEP_MS = 1000;
const ITEMS = 48;
const WIDTHS = [1, 2, 4];

/** One run as its own process; resolves to its wall, spawn → exit, ms. */
function runOnce(url, workers, out) {
  return new Promise((resolve, reject) => {
    const args = [CLI, "run", "humaneval", "--dataset", "humaneval-full", "--samples", String(ITEMS), "--agent", url];
    args.push("--concurrency", "1", "--participant-concurrency", "1", "--out", out, "--json", "--force");
    if (workers > 1) args.push("--shards", String(workers));
    const t0 = performance.now();
    const child = spawn(process.execPath, args, { stdio: ["ignore", "pipe", "pipe"] });
    let stderr = "";
    child.stderr.on("data", (d) => (stderr += d));
    child.stdout.resume();
    child.on("close", (code) => {
      const wall = performance.now() - t0;
      if (code !== 0) reject(new Error(`--shards ${workers} exited ${code}: ${stderr.slice(-500)}`));
      else resolve(wall);
    });
  });
}

export async function runShards(ctx) {
  const runs = ctx.quick ? 3 : 5;
  const tmp = mkdtempSync(join(tmpdir(), "a2a-bench-shards-"));
  const gold = createSingleShotGoldSolver({ datasets: [], env: process.env });
  const solver = {
    mode: "gold",
    async solve(input, signal) {
      await new Promise((r) => setTimeout(r, SLEEP_MS));
      return gold.solve(input, signal);
    },
  };
  const served = await serveApp("127.0.0.1", 0, (port) =>
    createPurpleApp({
      card: cardFromToml({ name: "bench-sleepy-gold", url: `http://127.0.0.1:${port}/`, version: "0.0.1", skills: [] }),
      solver,
    }),
  );
  const url = `http://127.0.0.1:${served.port}/`;
  try {
    const walls = Object.fromEntries(WIDTHS.map((w) => [w, []]));
    ctx.log(`shards: ${ITEMS} items x ${SLEEP_MS} ms at 1, 2, 4 workers, ${runs} rotations (+1 warm-up)`);
    for (let i = 0; i < 1 + runs; i++) {
      const order = WIDTHS.map((_, j) => WIDTHS[(i + j) % WIDTHS.length]);
      for (const w of order) {
        const wall = await runOnce(url, w, join(tmp, `w${w}`));
        if (i > 0) walls[w].push(wall);
      }
    }
    const perS = (w) => ITEMS / (median(walls[w]) / 1000);
    const speedup = (w) => perS(w) / perS(1);
    const linear = (w) => speedup(w) / w;
    const f = (w) =>
      `${w}: ${(median(walls[w]) / 1000).toFixed(1)} s (${perS(w).toFixed(2)} items/s, ${speedup(w).toFixed(2)}×, ${linear(w).toFixed(2)} of linear)`;
    const rows = [
      {
        id: "15",
        measure: `\`run humaneval --shards N\` (local processes, merged), ${ITEMS} sleep-bound items (the participant waits ${SLEEP_MS} ms per answer, one item at a time per shard), whole process wall, median of ${runs}`,
        figures: WIDTHS.map(f).join("; "),
        baseline: `1 worker (no --shards): ${(median(walls[1]) / 1000).toFixed(1)} s; the sleeps alone: ${((ITEMS * SLEEP_MS) / 1000).toFixed(0)} s`,
        ratio: linear(4),
        target: "4 workers ≥ 0.85× linear",
        met: linear(4) >= 0.85,
        limit: `each shard pays the runner's start-up (node, dataset load and sampling, the sandbox probe, the participant's card), and the merge reads the dataset again; spread over ${ITEMS / 4} items per shard at 4 workers.`,
      },
    ];
    ctx.log("shards: the merge's own cost");
    const dirs = WIDTHS.includes(4) ? [0, 1, 2, 3].map((s) => join(tmp, "w4", `shard-${s}`)) : [];
    const merges = [];
    for (let i = 0; i < 1 + runs; i++) {
      const t0 = performance.now();
      await mergeShards({ dirs, out: join(tmp, `merged-${i}`), logger: silentLogger() });
      if (i > 0) merges.push(performance.now() - t0);
    }
    const m = summary(merges);
    rows.push({
      id: "15b",
      measure: `the merge's own cost: \`mergeShards\` over 4 shards of ${ITEMS} items (verify each checkpoint line, read the dataset again, write results.json), in process, median of ${runs}`,
      figures: `${m.median.toFixed(0)} ms per merge = ${(m.median / ITEMS).toFixed(2)} ms per item`,
      baseline: "—",
      ratio: null,
      target: "small beside the run",
      met: m.median < median(walls[4]) / 10,
      limit:
        "mostly fixed: reading and hashing the 164-problem dataset file, loading the benchmark; measured on real shards, not on 10,000 synthetic items.",
    });
    return rows;
  } finally {
    await served.close();
    rmSync(tmp, { recursive: true, force: true });
  }
}
