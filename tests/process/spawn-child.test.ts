import { describe, expect, test } from "vitest";
import { groupAlive, runChild, startChild } from "../../src/process/index.js";
import { alive, firstLine, fixture } from "./helpers.js";

const node = process.execPath;
const env = { PATH: process.env["PATH"] ?? "" };

describe("startChild / runChild", () => {
  test("exit code and both outputs land in one record", async () => {
    const o = await runChild({
      file: node,
      args: ["-e", "process.stdout.write('out'); process.stderr.write('err'); process.exit(3)"],
      env,
      stdout: { all: true },
      stderr: { all: true },
    });
    expect(o).toMatchObject({
      exitCode: 3,
      signal: null,
      terminationReason: null,
      timedOut: false,
      isCanceled: false,
      isForcefullyTerminated: false,
      outputLimitExceeded: false,
      spawnError: null,
      stdout: "out",
      stderr: "err",
    });
    expect(o.durationMs).toBeGreaterThanOrEqual(0);
    expect(o.finishedAtMs).toBeGreaterThanOrEqual(o.startedAtMs);
  });

  test("stdin input is written and closed; lines are streamed", async () => {
    const lines: string[] = [];
    const o = await runChild({
      file: node,
      args: ["-e", "process.stdin.pipe(process.stdout)"],
      env,
      stdin: { input: "one\ntwo\r\nthree" },
      stdout: { lines: (l) => lines.push(l) },
    });
    expect(o.exitCode).toBe(0);
    expect(lines).toEqual(["one", "two", "three"]);
    expect(o.stdout).toBe("");
  });

  test("a child that ignores SIGTERM is SIGKILLed after the grace on timeout", async () => {
    const h = startChild({ file: node, args: [fixture("no-killable.mjs")], env, stdout: "pipe", graceMs: 300 });
    await firstLine(h);
    const t0 = Date.now();
    const o = await h.terminate("timeout");
    expect(Date.now() - t0).toBeGreaterThanOrEqual(280);
    expect(o).toMatchObject({ timedOut: true, signal: "SIGKILL", isForcefullyTerminated: true, isCanceled: false });
  });

  test("the timeout option fires on its own; the first reason wins over a later cancel", async () => {
    const ac = new AbortController();
    const h = startChild({
      file: node,
      args: [fixture("no-killable.mjs")],
      env,
      timeoutMs: 100,
      graceMs: 300,
      signal: ac.signal,
    });
    // Cancel while the timeout's grace is still running (or after the child is gone): the timeout stays the reason.
    setTimeout(() => ac.abort(), 200);
    const o = await h.done;
    expect(o.terminationReason).toBe("timeout");
    expect(o.timedOut).toBe(true);
    expect(o.isCanceled).toBe(false);
  });

  test("aborting the signal kills the whole group, grandchild included", async () => {
    const ac = new AbortController();
    const h = startChild({
      file: node,
      args: [fixture("with-grandchild.mjs")],
      env,
      stdout: "pipe",
      graceMs: 200,
      signal: ac.signal,
    });
    const [leader, grandchild] = (await firstLine(h)).split(" ").map(Number) as [number, number];
    expect(leader).toBe(h.pid);
    expect(alive(grandchild)).toBe(true);
    ac.abort();
    const o = await h.done;
    expect(o.isCanceled).toBe(true);
    expect(o.terminationReason).toBe("cancel");
    expect(o.isForcefullyTerminated).toBe(true);
    expect(alive(grandchild)).toBe(false);
    expect(groupAlive(leader)).toBe(false);
  });

  test("leftovers of a leader that exited on its own are swept", async () => {
    const h = startChild({ file: node, args: [fixture("with-grandchild.mjs"), "exit"], env, stdout: "pipe" });
    const [, grandchild] = (await firstLine(h)).split(" ").map(Number) as [number, number];
    const o = await h.done;
    expect(o.exitCode).toBe(0);
    expect(o.terminationReason).toBeNull();
    // The grandchild ignores SIGTERM: it took the leftover grace, then SIGKILL.
    expect(o.isForcefullyTerminated).toBe(true);
    expect(alive(grandchild)).toBe(false);
    expect(groupAlive(h.pid!)).toBe(false);
  });

  test("a tail with stopWhenFull stops a flooding child and keeps only the cap", async () => {
    const o = await runChild({
      file: node,
      args: ["-e", "const b = 'x'.repeat(4096); for (;;) process.stdout.write(b);"],
      env,
      stdout: { tail: 10_000, stopWhenFull: true },
      graceMs: 0,
      leftovers: "kill-after-close",
    });
    expect(o.outputLimitExceeded).toBe(true);
    expect(o.terminationReason).toBe("output");
    expect(o.signal).toBe("SIGKILL");
    expect(o.stdout.length).toBeLessThanOrEqual(10_000);
  });

  test("without a group of its own the child stays in ours and is signalled alone", async () => {
    const o = await runChild({
      file: node,
      args: ["-e", "process.stdout.write(String(process.pid)); setInterval(() => {}, 1000)"],
      env,
      stdout: { all: true },
      timeoutMs: 200,
      graceMs: 0,
      ownGroup: false,
    });
    expect(o).toMatchObject({ timedOut: true, signal: "SIGKILL", isForcefullyTerminated: true });
    expect(alive(Number(o.stdout))).toBe(false);
  });

  test("a long-lived child over pipes: we write lines, read its answers, and exited resolves before done", async () => {
    const answers: string[] = [];
    const h = startChild({
      file: node,
      args: [
        "-e",
        "require('node:readline').createInterface({ input: process.stdin }).on('line', (l) => { if (l === 'bye') process.exit(7); console.log('echo ' + l); })",
      ],
      env,
      stdin: "pipe",
      stdout: { lines: (l) => answers.push(l) },
      stderr: { tail: 1_000 },
    });
    expect(h.running).toBe(true);
    h.stdin!.write("one\n");
    h.stdin!.write("two\n");
    while (answers.length < 2) await new Promise((r) => setTimeout(r, 10));
    expect(answers).toEqual(["echo one", "echo two"]);
    h.stdin!.write("bye\n");
    expect(await h.exited).toEqual({ exitCode: 7, signal: null });
    expect(h.running).toBe(false);
    const o = await h.done;
    expect(o).toMatchObject({ exitCode: 7, terminationReason: null, stdoutBytes: "echo one\necho two\n".length });
  });

  test("stderr merged into stdout keeps arrival order in one tail", async () => {
    const o = await runChild({
      file: node,
      args: [
        "-e", // Spaced out: two pipes have no order between them within one read of the event loop.
        "const w = (s, t, x) => setTimeout(() => s.write(x), t); w(process.stdout, 0, '1 '); w(process.stderr, 80, '2 '); w(process.stdout, 160, '3')",
      ],
      env,
      stdout: { tail: 100 },
      stderr: "stdout",
    });
    expect(o).toMatchObject({ stdout: "1 2 3", stderr: "", stdoutBytes: 5, stderrBytes: 0 });
  });

  test("stopWork runs before the group is signalled, and a terminate() after the end changes nothing", async () => {
    const events: string[] = [];
    const h = startChild({
      file: node,
      args: [fixture("no-killable.mjs")],
      env,
      stdout: "pipe",
      graceMs: 0,
      stopWork: async (reason) => {
        events.push(`stop-work ${reason}`);
        await new Promise((r) => setTimeout(r, 30));
      },
    });
    await firstLine(h);
    void h.exited.then((e) => events.push(`exited ${e.signal}`));
    const o = await h.terminate("shutdown");
    expect(events).toEqual(["stop-work shutdown", "exited SIGKILL"]);
    expect(o).toMatchObject({ terminationReason: "shutdown", isCanceled: true, isForcefullyTerminated: true });
    expect(await h.terminate("timeout")).toBe(o);
  });

  test("options that cannot work are refused at the entry, naming the option", () => {
    expect(() => startChild({ file: "", args: [], env })).toThrow(/file must be a non-empty string/);
    expect(() => startChild({ file: node, args: [], env, graceMs: Number.NaN })).toThrow(/graceMs/);
    expect(() => startChild({ file: node, args: [], env, stdout: { tail: 0 } })).toThrow(/stdout.tail/);
    expect(() => startChild({ file: node, args: [], env, stderr: "stdout" })).toThrow(/stderr "stdout"/);
  });

  test("a command that does not exist ends in spawnError, not a throw", async () => {
    const o = await runChild({ file: "/nonexistent/tool", args: [], env });
    expect(o.spawnError).toMatch(/ENOENT/);
    expect(o.exitCode).toBeNull();
  });

  test("an already aborted signal starts nothing", async () => {
    const ac = new AbortController();
    ac.abort();
    const h = startChild({ file: node, args: ["-e", ""], env, signal: ac.signal });
    expect(h.child).toBeUndefined();
    expect(h.pid).toBeUndefined();
    const o = await h.done;
    expect(o).toMatchObject({ isCanceled: true, exitCode: null, durationMs: 0 });
  });
});
