/** Shared helpers of the scenario process tests: free ports, a CLI child with captured output, polling. */
import { spawn, type ChildProcess } from "node:child_process";
import { readFileSync } from "node:fs";
import { createServer } from "node:net";
import { cliEntry } from "../../src/util/package-root.js";

/** A port that was free a moment ago on 127.0.0.1. */
export async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const s = createServer();
    s.once("error", reject);
    s.listen(0, "127.0.0.1", () => {
      const addr = s.address();
      const port = typeof addr === "object" && addr ? addr.port : 0;
      s.close(() => resolve(port));
    });
  });
}

export interface CliChild {
  child: ChildProcess;
  output: () => string;
  exited: Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
}

/** Start `node dist/cli.js <args>` with stdout+stderr captured. */
export function startCli(args: string[], options: { cwd?: string; env?: NodeJS.ProcessEnv } = {}): CliChild {
  const child = spawn(process.execPath, [cliEntry, ...args], {
    cwd: options.cwd,
    env: options.env ?? process.env,
    stdio: ["ignore", "pipe", "pipe"],
  });
  let out = "";
  child.stdout.on("data", (d: Buffer) => (out += d.toString()));
  child.stderr.on("data", (d: Buffer) => (out += d.toString()));
  const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((r) =>
    child.once("exit", (code, signal) => r({ code, signal })),
  );
  return { child, output: () => out, exited };
}

/** Run the CLI to completion (bounded). */
export async function runCli(
  args: string[],
  options: { cwd?: string; env?: NodeJS.ProcessEnv; timeoutMs?: number } = {},
): Promise<{ code: number | null; output: string }> {
  const c = startCli(args, options);
  const timer = setTimeout(() => c.child.kill("SIGKILL"), options.timeoutMs ?? 30_000);
  const { code } = await c.exited;
  clearTimeout(timer);
  return { code, output: c.output() };
}

/** Poll `check` until true or throw after `ms`. */
export async function until(check: () => boolean | Promise<boolean>, ms: number, what: string): Promise<void> {
  const deadline = Date.now() + ms;
  while (!(await check())) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 50));
  }
}

/**
 * True when the pid is alive and not a zombie. A stopped agent stays a zombie until its
 * parent (the scenario manager) reaps it, which can lag on a loaded machine.
 */
export function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
  } catch {
    return false;
  }
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, "utf8");
    return stat.slice(stat.lastIndexOf(")") + 2, stat.lastIndexOf(")") + 3) !== "Z";
  } catch {
    return false; // gone between the two checks
  }
}
