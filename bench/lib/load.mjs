/**
 * HTTP load from outside: every run is autocannon in its own `node` process
 * (bench/load/autocannon-run.mjs), so the generator never shares an event loop
 * with the bench or the server measured. `compareUnderLoad` interleaves an
 * agent and its bare-Express baseline run by run (A B A B ..., order swapped
 * every pair) and reports each side's medians and the median of the per-pair
 * ratios, with the baseline's own ceiling under the same generator.
 */
import { readFileSync } from "node:fs";
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

/** CPU time (ms) a process has used so far (utime + stime from /proc), or NaN when unreadable. */
export function processCpuMs(pid) {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, "utf8");
    const f = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
    return ((Number(f[11]) + Number(f[12])) * 1000) / 100; // clock ticks, USER_HZ = 100 on Linux
  } catch {
    return NaN;
  }
}

/** One load run, plus the server's CPU per request (µs) when the spec names its `pid`. */
async function measuredRun(spec) {
  const { pid, ...load } = spec;
  const cpu0 = pid === undefined ? NaN : processCpuMs(pid);
  const out = await loadRun(load);
  const cpu1 = pid === undefined ? NaN : processCpuMs(pid);
  // The checks before and after the run are two more requests the server answered.
  return { ...out, cpuUs: ((cpu1 - cpu0) * 1000) / (out.requests + 2) };
}

/**
 * Interleaved A/B under the same generator at each concurrency in `levels`.
 * `ours` and `bare` are specs without `connections`. Returns, per level:
 * { ours: {rps, p50, p99, cpuUs}, bare: {...}, rpsRatio, p50Ratio, cpuRatio } (medians; ratios
 * are medians of the pairwise ratios ours/bare). `cpuUs` is the server's CPU per request (µs, from
 * /proc/<pid>/stat around each run; NaN when the spec gives no `pid`): unlike req/s and latency it
 * hardly moves when other work shares the cores, so it says which server costs more when the machine
 * is crowded.
 */
export async function compareUnderLoad(ours, bare, { levels = [1, 16, 64], reps = 5, durationS = 2 } = {}) {
  const out = {};
  for (const c of levels) {
    await measuredRun({ ...ours, connections: c, durationS: 1 }); // warm-up: JIT, sockets
    await measuredRun({ ...bare, connections: c, durationS: 1 });
    const runs = { ours: [], bare: [] };
    for (let i = 0; i < reps; i++) {
      const order = i % 2 === 0 ? ["ours", "bare"] : ["bare", "ours"];
      for (const side of order)
        runs[side].push(await measuredRun({ ...(side === "ours" ? ours : bare), connections: c, durationS }));
    }
    const med = (side) => ({
      rps: median(runs[side].map((x) => x.rps)),
      p50: median(runs[side].map((x) => x.p50)),
      p99: median(runs[side].map((x) => x.p99)),
      cpuUs: median(runs[side].map((x) => x.cpuUs)),
    });
    out[c] = {
      ours: med("ours"),
      bare: med("bare"),
      rpsRatio: median(runs.ours.map((x, i) => x.rps / runs.bare[i].rps)),
      p50Ratio: median(runs.ours.map((x, i) => x.p50 / runs.bare[i].p50)),
      cpuRatio: median(runs.ours.map((x, i) => x.cpuUs / runs.bare[i].cpuUs)),
      spread: {
        rpsRatio: minMax(runs.ours.map((x, i) => x.rps / runs.bare[i].rps)),
        p50Ratio: minMax(runs.ours.map((x, i) => x.p50 / runs.bare[i].p50)),
      },
    };
  }
  return out;
}

const minMax = (xs) => [Math.min(...xs), Math.max(...xs)];

/** Target of the serving rows: throughput ≥ 0.8× and p50 ≤ 1.25× the bare baseline, at every level. */
export const SERVING_TARGET = { minRps: 0.8, maxP50: 1.25 };

export const servingMet = (lvl) => lvl.rpsRatio >= SERVING_TARGET.minRps && lvl.p50Ratio <= SERVING_TARGET.maxP50;

export const loadFigures = (r) =>
  `${r.rps.toFixed(0)} req/s, p50 ${r.p50.toFixed(2)} ms, p99 ${r.p99.toFixed(2)} ms${Number.isFinite(r.cpuUs) ? `, server CPU ${r.cpuUs.toFixed(0)} µs/req` : ""}`;

/** "req/s 0.91× (0.85–0.97), p50 1.02× (…), server CPU/req 1.21×" for a level of compareUnderLoad. */
export const ratioFigures = (lvl) =>
  `req/s ${lvl.rpsRatio.toFixed(3)}× (pairs ${lvl.spread.rpsRatio.map((x) => x.toFixed(2)).join("–")}), p50 ${lvl.p50Ratio.toFixed(3)}× (pairs ${lvl.spread.p50Ratio.map((x) => x.toFixed(2)).join("–")})${Number.isFinite(lvl.cpuRatio) ? `, server CPU/req ${lvl.cpuRatio.toFixed(3)}×` : ""}`;
