/**
 * Summarise a V8 `.cpuprofile` (from `node --cpu-prof`) into self time per
 * bucket, so a row's "limiting cost" is measured, not guessed: module
 * compilation, module resolution/loading, node's own bootstrap, GC, our
 * bundle/dist code, dependencies, idle.
 */
import { readFileSync, readdirSync } from "node:fs";
import { join } from "node:path";

/** Bucket of one call frame. */
function bucket(frame) {
  const { functionName: fn, url } = frame;
  if (fn === "(garbage collector)") return "GC";
  if (fn === "(idle)" || fn === "(program)") return "idle/program";
  if (/compileSourceTextModule|compileFunction|wrapSafe/.test(fn) || /cjs-module-lexer/.test(url))
    return "module compile";
  if (/node:internal\/modules\//.test(url) || fn === "openFileHandle" || fn === "stat" || fn === "readFileUtf8")
    return "module resolve/load";
  if (url.startsWith("node:")) return "node internals";
  if (/node_modules\//.test(url)) return "dependencies (unbundled)";
  if (/\/dist\//.test(url)) return "our code + bundled deps";
  return "other";
}

/** Self time (ms) per bucket of the newest profile in `dir`, largest first, and the total. */
export function summarizeProfileDir(dir) {
  const files = readdirSync(dir)
    .filter((n) => n.endsWith(".cpuprofile"))
    .sort();
  if (files.length === 0) throw new Error(`no .cpuprofile in ${dir}`);
  const prof = JSON.parse(readFileSync(join(dir, files[files.length - 1]), "utf8"));
  const byId = new Map(prof.nodes.map((n) => [n.id, n]));
  const self = new Map();
  let total = 0;
  prof.samples.forEach((id, i) => {
    const dt = prof.timeDeltas[i] / 1000;
    const b = bucket(byId.get(id).callFrame);
    self.set(b, (self.get(b) ?? 0) + dt);
    total += dt;
  });
  return { totalMs: total, buckets: [...self.entries()].sort((a, b) => b[1] - a[1]) };
}

/** "compile 80 ms, resolve/load 40 ms, ..." for a row's limit text. */
export function formatProfile(summary, top = 5) {
  return summary.buckets
    .slice(0, top)
    .map(([k, v]) => `${k} ${v.toFixed(0)} ms`)
    .join(", ");
}
