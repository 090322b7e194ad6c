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

/** Frames that run when a connection or request arrives: where a start-up profile is cut. */
const FIRST_REQUEST_FRAMES = new Set(["onconnection", "connectionListenerInternal", "parserOnIncoming"]);

/** Time (ms into the profile) of the first sample handling an incoming connection, or Infinity. */
function firstRequestMs(prof, byId) {
  const parent = new Map();
  for (const n of prof.nodes) for (const c of n.children ?? []) parent.set(c, n.id);
  let t = 0;
  for (let i = 0; i < prof.samples.length; i++) {
    t += prof.timeDeltas[i] / 1000;
    for (let id = prof.samples[i]; id !== undefined; id = parent.get(id))
      if (FIRST_REQUEST_FRAMES.has(byId.get(id).callFrame.functionName)) return t;
  }
  return Infinity;
}

/**
 * Self time (ms) per bucket of the newest profile in `dir`, largest first, and the total.
 * `untilFirstRequest`: only the samples before the process first handled an incoming connection
 * (a start-up profile: what ran between process start and the first card poll being answered).
 */
export function summarizeProfileDir(dir, { untilFirstRequest = false } = {}) {
  const files = readdirSync(dir)
    .filter((n) => n.endsWith(".cpuprofile"))
    .sort();
  if (files.length === 0) throw new Error(`no .cpuprofile in ${dir}`);
  const prof = JSON.parse(readFileSync(join(dir, files[files.length - 1]), "utf8"));
  const byId = new Map(prof.nodes.map((n) => [n.id, n]));
  const cut = untilFirstRequest ? firstRequestMs(prof, byId) : Infinity;
  const self = new Map();
  let total = 0;
  let t = 0;
  prof.samples.forEach((id, i) => {
    const dt = prof.timeDeltas[i] / 1000;
    t += dt;
    if (t > cut) return;
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

/**
 * Top `n` frames by self time of the newest profile in `dir`: function name,
 * where it lives (file:line, the repo root and node_modules prefix trimmed),
 * ms and share of the non-idle samples. Idle/program/GC are reported as frames too.
 */
export function topSelfFrames(dir, n = 25) {
  const files = readdirSync(dir)
    .filter((f) => f.endsWith(".cpuprofile"))
    .sort();
  if (files.length === 0) throw new Error(`no .cpuprofile in ${dir}`);
  const prof = JSON.parse(readFileSync(join(dir, files[files.length - 1]), "utf8"));
  const byId = new Map(prof.nodes.map((x) => [x.id, x]));
  const self = new Map();
  let busy = 0;
  prof.samples.forEach((id, i) => {
    const f = byId.get(id).callFrame;
    const where = f.url
      ? `${f.url.replace(/^.*\/node_modules\//, "").replace(/^file:\/\/.*\/dist\//, "dist/")}:${f.lineNumber + 1}`
      : "";
    const key = `${f.functionName || "(anonymous)"} ${where}`.trim();
    const dt = prof.timeDeltas[i] / 1000;
    self.set(key, (self.get(key) ?? 0) + dt);
    if (f.functionName !== "(idle)") busy += dt;
  });
  return {
    busyMs: busy,
    frames: [...self.entries()]
      .filter(([k]) => k !== "(idle)")
      .sort((a, b) => b[1] - a[1])
      .slice(0, n)
      .map(([frame, ms]) => ({ frame, ms, share: ms / busy })),
  };
}

/** The top frames as text lines (for the bench's profile summary file). */
export function formatFrames(top) {
  return [
    `busy (non-idle) ${top.busyMs.toFixed(0)} ms`,
    ...top.frames.map(
      (f) => `${f.ms.toFixed(1).padStart(8)} ms ${(f.share * 100).toFixed(1).padStart(5)}%  ${f.frame}`,
    ),
  ].join("\n");
}
