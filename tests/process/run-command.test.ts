import { describe, expect, test } from "vitest";
import { runCommand, succeeded, ProcessOptionError } from "../../src/process/index.js";
import { alive } from "./helpers.js";

const node = process.execPath;

describe("runCommand", () => {
  test("inherits process.env by default, captures both streams and succeeds on exit 0", async () => {
    process.env["A2A_RUN_COMMAND_PROBE"] = "seen";
    try {
      const o = await runCommand(
        node,
        ["-e", "process.stdout.write(process.env.A2A_RUN_COMMAND_PROBE); process.stderr.write('e')"],
        { timeoutMs: 10_000 },
      );
      expect(o).toMatchObject({ exitCode: 0, stdout: "seen", stderr: "e", stdoutBytes: 4, stderrBytes: 1 });
      expect(succeeded(o)).toBe(true);
    } finally {
      delete process.env["A2A_RUN_COMMAND_PROBE"];
    }
  });

  test("input is written to stdin and closed", async () => {
    const o = await runCommand(node, ["-e", "process.stdin.pipe(process.stdout)"], {
      timeoutMs: 10_000,
      input: Buffer.from("bytes in"),
    });
    expect(o.stdout).toBe("bytes in");
  });

  test("a timeout kills the command at once, group included, and records timedOut", async () => {
    // The child starts a grandchild in its group, prints its pid and blocks until killed. Only the timeout
    // ends it; when the machine is so busy that the timeout fires before the pid is out, that run still
    // shows the timeout, but the group has nothing to show, so it runs again with twice the time.
    for (let timeoutMs = 300; ; timeoutMs *= 2) {
      const o = await runCommand(
        node,
        [
          "-e",
          "const c = require('node:child_process').spawn(process.execPath, ['-e', 'setInterval(() => {}, 1000)'], { stdio: 'ignore' });" +
            "process.stdout.write(String(c.pid)); setInterval(() => {}, 1000)",
        ],
        { timeoutMs },
      );
      // SIGKILL, not SIGTERM first: a node child would die of a SIGTERM, so this is "at once" (no grace).
      expect(o).toMatchObject({
        timedOut: true,
        terminationReason: "timeout",
        signal: "SIGKILL",
        isForcefullyTerminated: true,
      });
      expect(o.durationMs).toBeGreaterThanOrEqual(timeoutMs - 5);
      expect(succeeded(o)).toBe(false);
      if (o.stdout === "") continue;
      const grandchild = Number(o.stdout);
      expect(grandchild).toBeGreaterThan(0);
      expect(alive(grandchild)).toBe(false);
      return;
    }
  });

  test("output over the cap stops the command, keeps the cap's tail and counts every byte", async () => {
    const o = await runCommand(
      node,
      ["-e", "process.stdout.write('a'.repeat(3000) + 'z'.repeat(1000)); setInterval(() => {}, 1000)"],
      { timeoutMs: 10_000, maxOutputBytes: 1000 },
    );
    expect(o.outputLimitExceeded).toBe(true);
    expect(o.stdout).toBe("z".repeat(1000));
    expect(o.stdoutBytes).toBe(4000);
  });

  test("overflow 'tail' keeps the last bytes and lets the command finish", async () => {
    const o = await runCommand(node, ["-e", "process.stdout.write('a'.repeat(3000) + 'end')"], {
      timeoutMs: 10_000,
      maxOutputBytes: 10,
      overflow: "tail",
    });
    expect(o).toMatchObject({ exitCode: 0, outputLimitExceeded: false, stdout: "aaaaaaaend", stdoutBytes: 3003 });
  });

  test("a missing program is a spawnError, not a throw; a bad cap is a ProcessOptionError", async () => {
    const o = await runCommand("/nonexistent/probe", [], { timeoutMs: 1_000 });
    expect(o.spawnError).toMatch(/ENOENT/);
    expect(succeeded(o)).toBe(false);
    expect(() => runCommand(node, [], { timeoutMs: 1_000, maxOutputBytes: 0 })).toThrow(ProcessOptionError);
    expect(() => runCommand(node, [], { timeoutMs: -1 })).toThrow(/timeoutMs must be a finite number of ms >= 0/);
  });

  test("stopWork is awaited before the command is killed on cancel", async () => {
    const ac = new AbortController();
    let workStopped = false;
    const p = runCommand(node, ["-e", "process.stdout.write('up'); setInterval(() => {}, 1000)"], {
      timeoutMs: 10_000,
      signal: ac.signal,
      stopWork: async () => {
        await new Promise((r) => setTimeout(r, 50));
        workStopped = true;
      },
    });
    setTimeout(() => ac.abort(), 100);
    const o = await p;
    expect(workStopped).toBe(true);
    expect(o).toMatchObject({ isCanceled: true, terminationReason: "cancel", signal: "SIGKILL" });
  });
});
