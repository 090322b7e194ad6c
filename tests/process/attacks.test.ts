/**
 * Adversarial children against the process layer: each must end in the flat outcome record, bounded in
 * time and memory, never a hang or a rejection.
 */
import { chmod, mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, test } from "vitest";
import { PIPE_DRAIN_MS, runChild, STOP_WORK_WAIT_MS } from "../../src/process/index.js";
import { alive } from "./helpers.js";

const node = process.execPath;
const env = { PATH: process.env["PATH"] ?? "" };

/** A child whose grandchild leaves the group (setsid) holding stdout and stderr open, printing its pid. */
const SETSID_HOLDER = [
  "-e",
  "const { spawn } = require('node:child_process');" +
    "const g = spawn('setsid', [process.execPath, '-e', 'setInterval(() => {}, 1000)'], { stdio: ['ignore', 'inherit', 'inherit'] });" +
    "console.log(g.pid); setInterval(() => {}, 1000);",
];

describe("adversarial children", () => {
  let dir: string;
  const leftovers: number[] = [];
  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), "a2a-proc-attack-"));
  });
  afterAll(async () => {
    for (const pid of leftovers) if (alive(pid)) process.kill(pid, "SIGKILL");
    await rm(dir, { recursive: true, force: true });
  });

  test("a grandchild that left the group holding the pipes cannot stall a kill-after-close timeout", async () => {
    const t0 = Date.now();
    const o = await runChild({
      file: node,
      args: SETSID_HOLDER,
      env,
      stdout: { tail: 1024 },
      stderr: { tail: 1024 },
      timeoutMs: 500,
      graceMs: 0,
      leftovers: "kill-after-close",
    });
    const pid = Number(o.stdout.trim().split("\n")[0]);
    if (pid > 0) leftovers.push(pid);
    expect(o).toMatchObject({ timedOut: true, signal: "SIGKILL", spawnError: null });
    expect(Date.now() - t0).toBeLessThan(PIPE_DRAIN_MS + 10_000);
  }, 40_000);

  test(
    "a stopWork that never settles does not keep the child alive past its timeout",
    async () => {
      const t0 = Date.now();
      const o = await runChild({
        file: node,
        args: ["-e", "setInterval(() => {}, 1000)"],
        env,
        timeoutMs: 200,
        graceMs: 0,
        stopWork: () => new Promise(() => undefined),
      });
      expect(o).toMatchObject({ timedOut: true, signal: "SIGKILL" });
      expect(Date.now() - t0).toBeLessThan(STOP_WORK_WAIT_MS + 10_000);
    },
    STOP_WORK_WAIT_MS + 30_000,
  );

  test("1 GiB on stdout with a tail: memory stays bounded and the tail is the end", async () => {
    const before = process.memoryUsage().rss;
    let peak = before;
    const sampler = setInterval(() => (peak = Math.max(peak, process.memoryUsage().rss)), 20);
    const o = await runChild({
      file: "/bin/sh",
      args: ["-c", "head -c 1073741824 /dev/zero; printf END"],
      env,
      stdout: { tail: 4096 },
      timeoutMs: 120_000,
    });
    clearInterval(sampler);
    expect(o.exitCode).toBe(0);
    expect(o.stdoutBytes).toBe(1024 ** 3 + 3);
    expect(o.stdout.endsWith("END")).toBe(true);
    expect(o.stdout.length).toBeLessThanOrEqual(4096);
    expect(peak - before).toBeLessThan(256 * 1024 * 1024);
  }, 150_000);

  test("a child that closes stdout early and keeps running is still timed out", async () => {
    const o = await runChild({
      file: "/bin/sh",
      args: ["-c", "echo early; exec >&- 2>&-; sleep 30"],
      env,
      stdout: { tail: 1024 },
      stderr: { tail: 1024 },
      timeoutMs: 300,
      graceMs: 0,
    });
    expect(o).toMatchObject({ timedOut: true, stdout: "early\n" });
  }, 20_000);

  test("ENOENT and EACCES end in spawnError, never a rejection", async () => {
    const missing = await runChild({ file: join(dir, "missing"), args: [], env, timeoutMs: 5000 });
    expect(missing.spawnError).toMatch(/ENOENT/);
    const noExec = join(dir, "not-executable");
    await writeFile(noExec, "#!/bin/sh\necho hi\n");
    await chmod(noExec, 0o644);
    const denied = await runChild({ file: noExec, args: [], env, timeoutMs: 5000, stdout: { tail: 100 } });
    expect(denied).toMatchObject({ exitCode: null, stdout: "" });
    expect(denied.spawnError).toMatch(/EACCES/);
  });
});
