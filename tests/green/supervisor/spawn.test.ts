import { describe, expect, test } from "vitest";
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { spawn } from "node:child_process";
import { pathToFileURL } from "node:url";
import { packageRoot } from "../../../src/util/package-root.js";
import { spawnRunner } from "../../../src/green/supervisor/spawn.js";
import type { RunnerEvent } from "../../../src/runner/protocol.js";
import { RUNNERS_DIR, psAlive, psGroup } from "../helpers.js";

function start(fixture: string, graceMs = 500) {
  const out = mkdtempSync(join(tmpdir(), "spawn-test-"));
  const events: RunnerEvent[] = [];
  const handle = spawnRunner({
    command: process.execPath,
    args: [join(RUNNERS_DIR, fixture), "run", "humaneval", "--out", out, "--run-id", "r1"],
    cwd: out,
    env: { PATH: process.env["PATH"] ?? "" },
    graceMs,
    onEvent: (e) => events.push(e),
  });
  return { handle, events, out, cleanup: () => rmSync(out, { recursive: true, force: true }) };
}

/** Polls `cond` until it holds; the test's own timeout bounds the wait. */
async function until(cond: () => boolean): Promise<void> {
  while (!cond()) await new Promise((r) => setTimeout(r, 20));
}

describe("spawnRunner", () => {
  test("parses events in order and keeps other output in the tail", async () => {
    const r = start("events.mjs");
    const o = await r.handle.done;
    expect(o.exitCode).toBe(0);
    expect(r.events.map((e) => e.event)).toEqual([
      "run_started",
      "task_started",
      "task_finished",
      "task_started",
      "task_finished",
      "task_started",
      "task_finished",
      "run_finished",
    ]);
    expect(o.isCanceled).toBe(false);
    r.cleanup();
  });

  test("a runner that obeys SIGTERM ends at once, its group empty", async () => {
    // A grace far beyond any load: ending well inside it can only be the runner obeying SIGTERM.
    const r = start("obeys-term.mjs", 60_000);
    await until(() => r.events.length > 0);
    const pid = r.handle.pid!;
    const t0 = Date.now();
    const o = await r.handle.terminate("cancel");
    expect(Date.now() - t0).toBeLessThan(30_000);
    expect(o.exitCode).toBe(143);
    expect(o.isCanceled).toBe(true);
    expect(o.isForcefullyTerminated).toBe(false);
    expect(psGroup(pid)).toEqual([]);
    r.cleanup();
  });

  test("a runner that ignores SIGTERM dies by SIGKILL at grace + epsilon", async () => {
    const r = start("ignores-term.mjs", 700);
    await until(() => r.events.length > 0);
    const pid = r.handle.pid!;
    const t0 = Date.now();
    const o = await r.handle.terminate("cancel");
    const took = Date.now() - t0;
    expect(took).toBeGreaterThanOrEqual(650);
    // Nothing else ends this runner: SIGKILL (below) came from the grace. The bound only says it came (a busy
    // machine may take seconds to deliver and reap it), not how fast.
    expect(took).toBeLessThan(30_000);
    expect(o.signal).toBe("SIGKILL");
    expect(o.isForcefullyTerminated).toBe(true);
    expect(o.outputTail).toContain("got SIGTERM, ignoring it");
    expect(psGroup(pid)).toEqual([]);
    r.cleanup();
  });

  test("cancel kills the whole group, grandchild included", async () => {
    const r = start("grandchild.mjs", 700);
    await until(() => r.events.length > 0);
    const pids = JSON.parse(readFileSync(join(r.out, "pids.json"), "utf8")) as { runner: number; grandchild: number };
    expect(psAlive(pids.grandchild)).toBe(true);
    const o = await r.handle.terminate("cancel");
    expect(o.isCanceled).toBe(true);
    expect(psAlive(pids.grandchild)).toBe(false);
    expect(psGroup(r.handle.pid!)).toEqual([]);
    r.cleanup();
  });

  test("a command that does not exist yields a spawnError outcome, not a throw", async () => {
    const h = spawnRunner({ command: "/nonexistent/runner", args: [], cwd: tmpdir(), env: {} });
    const o = await h.done;
    expect(o.spawnError).toMatch(/ENOENT/);
    expect(o.exitCode).toBeNull();
  });

  test("flooding output keeps only the last 200 lines, long lines truncated", async () => {
    const r = start("flood.mjs");
    const o = await r.handle.done;
    expect(o.exitCode).toBe(0);
    expect(r.events.at(-1)?.event).toBe("run_finished");
    expect(o.outputTail.length).toBeLessThanOrEqual(200);
    expect(
      o.outputTail.some((l) => l.endsWith("[line truncated]")),
      o.outputTail
        .slice(-2)
        .map((l) => l.slice(-40))
        .join("|"),
    ).toBe(true);
    expect(Math.max(...o.outputTail.map((l) => l.length))).toBeLessThan(70_000);
    r.cleanup();
  });

  // Uses the built dist/ (npm test builds first): a plain node parent cannot load .ts on Node 20.
  test("the runner exits when its parent dies (stdin lifeline), even on SIGKILL", async () => {
    // A throwaway parent that starts the runner through spawnRunner, reports its pid, then gets SIGKILLed.
    const parentCode = `
      const { spawnRunner } = await import(${JSON.stringify(pathToFileURL(join(packageRoot, "dist", "green", "supervisor", "spawn.js")).href)});
      const h = spawnRunner({ command: process.execPath, args: [${JSON.stringify(join(RUNNERS_DIR, "obeys-term.mjs"))}, "run", "x"], cwd: process.cwd(), env: {} });
      process.stdout.write(String(h.pid) + "\\n");
      setInterval(() => {}, 1000);
    `;
    const parent = spawn(process.execPath, ["--input-type=module", "-e", parentCode], {
      stdio: ["ignore", "pipe", "inherit"],
    });
    const runnerPid = await new Promise<number>((resolve, reject) => {
      parent.stdout.once("data", (d: Buffer) => resolve(Number(String(d).trim())));
      parent.once("exit", () => reject(new Error("parent exited early")));
    });
    expect(psAlive(runnerPid)).toBe(true);
    parent.kill("SIGKILL");
    await until(() => !psAlive(runnerPid));
    expect(psAlive(runnerPid)).toBe(false);
  });
});
