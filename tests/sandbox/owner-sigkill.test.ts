/**
 * The owner of a local sandbox killed by SIGKILL (no exit handler runs): no job it started survives, at the
 * levels that contain processes (bubblewrap and unshare; `none` isolates nothing). Both kinds of job: one
 * launched alone (bash) and one through the fork server (python).
 */
import { describe, expect, test } from "vitest";
import { spawn } from "node:child_process";
import { readdirSync, readFileSync } from "node:fs";
import { join, resolve } from "node:path";
import { randomInt } from "node:crypto";

/** Pids of live processes whose command line contains `needle`. */
function withArg(needle: string): number[] {
  const found: number[] = [];
  for (const d of readdirSync("/proc").filter((n) => /^\d+$/.test(n))) {
    try {
      const stat = readFileSync(`/proc/${d}/stat`, "utf8");
      if (stat.slice(stat.lastIndexOf(")") + 2).startsWith("Z")) continue;
      if (readFileSync(`/proc/${d}/cmdline`, "utf8").split("\0").includes(needle)) found.push(Number(d));
    } catch {
      // gone meanwhile
    }
  }
  return found;
}

describe.each(["bwrap", "unshare"] as const)("an owner killed by SIGKILL at %s", (level) => {
  test("leaves no job running", { timeout: 60_000 }, async () => {
    const secs = String(4000 + randomInt(5000));
    const pysecs = `${secs}.5`;
    const dist = resolve(import.meta.dirname, "..", "..", "dist");
    const script = `
      const { createSandbox } = await import(${JSON.stringify(join(dist, "sandbox/index.js"))});
      const { silentLogger } = await import(${JSON.stringify(join(dist, "util/logger.js"))});
      const sb = await createSandbox({ backend: "local", logger: silentLogger(), backendOptions: { forceIsolation: ${JSON.stringify(level)} } });
      void sb.exec({ language: "bash", code: "setsid sleep ${secs} & sleep ${secs}", timeoutMs: 120000 });
      void sb.exec({ language: "python", code: "import subprocess, time\\nsubprocess.Popen(['sleep', '${pysecs}'], start_new_session=True)\\ntime.sleep(100)", timeoutMs: 120000 });
      process.stdout.write("started\\n");
      setInterval(() => {}, 1000);`;
    const owner = spawn(process.execPath, ["--input-type=module", "-e", script], {
      stdio: ["ignore", "pipe", "inherit"],
    });
    try {
      await new Promise<void>((res) => owner.stdout.once("data", () => res()));
      let running: number[] = [];
      // Poll the process table until the jobs run, then until they are gone (the test's timeout bounds both).
      while (running.length < 3) {
        await new Promise((r) => setTimeout(r, 50));
        running = [...withArg(secs), ...withArg(pysecs)];
      }
      expect(running.length).toBe(3);
      owner.kill("SIGKILL");
      while (running.length > 0) {
        await new Promise((r) => setTimeout(r, 50));
        running = [...withArg(secs), ...withArg(pysecs)];
      }
      expect(running.map((p) => readFileSync(`/proc/${p}/cmdline`, "utf8").split("\0").join(" "))).toEqual([]);
    } finally {
      owner.kill("SIGKILL");
      for (const pid of [...withArg(secs), ...withArg(pysecs)]) process.kill(pid, "SIGKILL");
    }
  });
});
