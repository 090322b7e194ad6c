/**
 * HTTP load from outside: every run is autocannon in its own `node` process
 * (bench/load/autocannon-run.mjs), so the generator never shares an event loop
 * with the bench or the server measured. `compareUnderLoad` interleaves an
 * agent and its bare-Express baseline run by run (A B A B ..., order swapped
 * every pair) and reports each side's medians and the median of the per-pair
 * ratios, with the baseline's own ceiling under the same generator.
 */
import { join } from "node:path";
import { BENCH } from "./paths.mjs";
import { median } from "./stats.mjs";
import { run } from "./proc.mjs";

const DRIVER = join(BENCH, "load", "autocannon-run.mjs");

/** One autocannon run in its own process; resolves {rps, p50, p99, requests, errors, non2xx, timeouts}. */
export async function loadRun(spec) {
  const r = await run(process.execPath, [DRIVER, JSON.stringify(spec)]);
  if (r.code !== 0) throw new Error(`load generator failed (exit ${r.code}): ${r.stderr.slice(0, 400)}`);
  const out = JSON.parse(r.stdout.trim().split("\n").pop());
  if (out.errors > 0 || out.non2xx > 0 || out.timeouts > 0)
    throw new Error(
      `load run against ${spec.url}: ${out.errors} errors, ${out.non2xx} non-2xx, ${out.timeouts} timeouts`,
    );
  return out;
}

/**
 * Interleaved A/B under the same generator at each concurrency in `levels`.
 * `ours` and `bare` are specs without `connections`. Returns, per level:
 * { ours: {rps, p50, p99}, bare: {...}, rpsRatio, p50Ratio } (medians; ratios
 * are medians of the pairwise ratios ours/bare).
 */
export async function compareUnderLoad(ours, bare, { levels = [1, 16, 64], reps = 5, durationS = 2 } = {}) {
  const out = {};
  for (const c of levels) {
    await loadRun({ ...ours, connections: c, durationS: 1 }); // warm-up: JIT, sockets
    await loadRun({ ...bare, connections: c, durationS: 1 });
    const runs = { ours: [], bare: [] };
    for (let i = 0; i < reps; i++) {
      const order = i % 2 === 0 ? ["ours", "bare"] : ["bare", "ours"];
      for (const side of order)
        runs[side].push(await loadRun({ ...(side === "ours" ? ours : bare), connections: c, durationS }));
    }
    const med = (side) => ({
      rps: median(runs[side].map((x) => x.rps)),
      p50: median(runs[side].map((x) => x.p50)),
      p99: median(runs[side].map((x) => x.p99)),
    });
    out[c] = {
      ours: med("ours"),
      bare: med("bare"),
      rpsRatio: median(runs.ours.map((x, i) => x.rps / runs.bare[i].rps)),
      p50Ratio: median(runs.ours.map((x, i) => x.p50 / runs.bare[i].p50)),
    };
  }
  return out;
}

/** Target of the serving rows: throughput ≥ 0.8× and p50 ≤ 1.25× the bare baseline, at every level. */
export const SERVING_TARGET = { minRps: 0.8, maxP50: 1.25 };

export const servingMet = (lvl) => lvl.rpsRatio >= SERVING_TARGET.minRps && lvl.p50Ratio <= SERVING_TARGET.maxP50;

export const loadFigures = (r) => `${r.rps.toFixed(0)} req/s, p50 ${r.p50.toFixed(2)} ms, p99 ${r.p99.toFixed(2)} ms`;
