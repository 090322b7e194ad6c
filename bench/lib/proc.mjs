/**
 * Process helpers for the bench: spawn with a tagged lifetime, free ports,
 * polling, whole-process timing and RSS from /proc. Every child started here
 * is detached into its own process group and killed by group on cleanup.
 */
import { spawn } from "node:child_process";
import { createServer } from "node:net";
import { readFileSync, readdirSync } from "node:fs";

const started = new Set();

/** A free loopback TCP port (bound then released). */
export function freePort() {
  return new Promise((resolve, reject) => {
    const s = createServer();
    s.once("error", reject);
    s.listen(0, "127.0.0.1", () => {
      const { port } = s.address();
      s.close(() => resolve(port));
    });
  });
}

/** Spawn a detached child (own process group); remembered for killAll(). */
export function start(file, args, opts = {}) {
  const child = spawn(file, args, { stdio: ["ignore", "pipe", "pipe"], detached: true, ...opts });
  started.add(child);
  child.once("exit", () => started.delete(child));
  child.stderrText = "";
  child.stderr?.setEncoding("utf8").on("data", (s) => {
    if (child.stderrText.length < 4000) child.stderrText += s;
  });
  return child;
}

/** Kill one child's process group and wait for it to exit. */
export async function stop(child, signal = "SIGTERM", graceMs = 3000) {
  if (child.exitCode !== null || child.signalCode !== null) return;
  const gone = new Promise((r) => child.once("exit", r));
  try {
    process.kill(-child.pid, signal);
  } catch {
    /* gone */
  }
  const t = setTimeout(() => {
    try {
      process.kill(-child.pid, "SIGKILL");
    } catch {
      /* gone */
    }
  }, graceMs);
  await gone;
  clearTimeout(t);
}

/** Kill every child this module started (bench exit path). */
export function killAll() {
  for (const c of started) {
    try {
      process.kill(-c.pid, "SIGKILL");
    } catch {
      /* gone */
    }
  }
}

export const sleep = (ms) => new Promise((r) => setTimeout(r, ms));

/** Poll `fn` every `everyMs` until it returns a truthy value or `timeoutMs` passes (then throws). */
export async function waitFor(fn, { timeoutMs = 10000, everyMs = 2, what = "condition" } = {}) {
  const t0 = performance.now();
  for (;;) {
    const v = await fn();
    if (v) return v;
    if (performance.now() - t0 > timeoutMs) throw new Error(`timed out waiting for ${what}`);
    await sleep(everyMs);
  }
}

/**
 * GET `url` once; true when it answers 200. Bounded (`timeoutMs`, default 1 s)
 * so a server that accepts but never answers fails the poll instead of
 * hanging the bench.
 */
export async function ok200(url, timeoutMs = 1000) {
  try {
    const r = await fetch(url, { signal: AbortSignal.timeout(timeoutMs) });
    await r.arrayBuffer();
    return r.status === 200;
  } catch {
    return false;
  }
}

/** Run a command to completion; resolves {code, ms, stdout, stderr}. Wall time measured around spawn→exit. */
export function run(file, args, opts = {}) {
  return new Promise((resolve, reject) => {
    const t0 = performance.now();
    const child = spawn(file, args, { stdio: ["ignore", "pipe", "pipe"], ...opts });
    let stdout = "";
    let stderr = "";
    child.stdout.setEncoding("utf8").on("data", (s) => {
      stdout += s;
    });
    child.stderr.setEncoding("utf8").on("data", (s) => {
      stderr += s;
    });
    child.once("error", reject);
    child.once("close", (code) => resolve({ code, ms: performance.now() - t0, stdout, stderr }));
  });
}

/** Resident set size of `pid` in MiB (VmRSS from /proc), or NaN if gone. */
export function rssMiB(pid) {
  try {
    const m = /VmRSS:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, "utf8"));
    return m ? Number(m[1]) / 1024 : NaN;
  } catch {
    return NaN;
  }
}

/** Whether any live (non-zombie) process is in process group `pgid` (scans /proc). */
export function groupAlive(pgid) {
  let names;
  try {
    names = readdirSync("/proc");
  } catch {
    return false;
  }
  for (const n of names) {
    if (n.charCodeAt(0) < 48 || n.charCodeAt(0) > 57) continue;
    let stat;
    try {
      stat = readFileSync(`/proc/${n}/stat`, "utf8");
    } catch {
      continue;
    }
    const f = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
    if (f[0] !== "Z" && Number(f[2]) === pgid) return true;
  }
  return false;
}
