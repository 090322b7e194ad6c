/** Helpers for hardening tests that need a real green process and the process tree. */
import { execFileSync, spawn, type ChildProcess } from "node:child_process";
import { cliEntry } from "../../src/util/package-root.js";
import { psAlive } from "../green/helpers.js";

export interface GreenProcess {
  child: ChildProcess;
  pid: number;
  url: string;
  /** Everything the process wrote to stdout/stderr so far. */
  output(): string;
}

/** Start `a2a-bench green --port 0` (built dist) with `env`; resolves when it listens. */
export async function startGreenProcess(env: NodeJS.ProcessEnv): Promise<GreenProcess> {
  const child = spawn(process.execPath, [cliEntry, "green", "--port", "0"], { stdio: ["ignore", "pipe", "pipe"], env });
  let out = "";
  child.stderr.on("data", (d: Buffer) => (out += String(d)));
  const port = await new Promise<number>((resolve, reject) => {
    child.stdout.on("data", (d: Buffer) => {
      out += String(d);
      const m = /"port":(\d+)[^\n]*green agent listening/.exec(out);
      if (m) resolve(Number(m[1]));
    });
    child.once("exit", (code) => reject(new Error(`green exited early (${code}): ${out.slice(-2000)}`)));
  });
  return { child, pid: child.pid!, url: `http://127.0.0.1:${port}/`, output: () => out };
}

/** Pids of every live descendant of `root` (from ps: pid, ppid). */
export function descendants(root: number): number[] {
  const rows = execFileSync("ps", ["-eo", "pid=,ppid=,stat="], { encoding: "utf8" })
    .split("\n")
    .map((l) => l.trim().split(/\s+/))
    .filter((f) => f.length >= 3 && !(f[2] ?? "").startsWith("Z"))
    .map((f) => ({ pid: Number(f[0]), ppid: Number(f[1]) }));
  const out: number[] = [];
  const walk = (p: number) => {
    for (const r of rows)
      if (r.ppid === p) {
        out.push(r.pid);
        walk(r.pid);
      }
  };
  walk(root);
  return out;
}

/** Command line of a pid ("" when gone). */
export function commandOf(pid: number): string {
  try {
    return execFileSync("ps", ["-o", "args=", "-p", String(pid)], { encoding: "utf8" }).trim();
  } catch {
    return "";
  }
}

/** Wait until none of `pids` is alive; returns the survivors after `timeoutMs`. */
export async function waitAllGone(pids: number[], timeoutMs: number): Promise<number[]> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const alive = pids.filter(psAlive);
    if (alive.length === 0 || Date.now() > deadline) return alive;
    await new Promise((r) => setTimeout(r, 100));
  }
}

/** Poll `check` every 50 ms until it returns a value, or throw after `timeoutMs`. */
export async function until<T>(what: string, check: () => T | undefined, timeoutMs = 30_000): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const v = check();
    if (v !== undefined) return v;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 50));
  }
}
