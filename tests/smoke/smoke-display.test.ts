import { describe, expect, test } from "vitest";
import { chooseSmokeDisplayMode, createSmokeDisplay } from "../../src/smoke/smoke-display.js";
import type { ProgressUpdate } from "../../src/smoke/assessment-stream.js";
import { FakePipe, FakeTty, renderScreen } from "../support/fake-tty.js";

const TOTAL = 3;
const w = (text: string, data?: Record<string, unknown>): ProgressUpdate => ({ state: "working", text, data });
const d = (event: string, done: number, passed = done) => ({ event, done, total: TOTAL, passed });

/** What the green agent publishes for a 3-item run with concurrency 3 (every item starts before any finishes). */
function updates(): ProgressUpdate[] {
  return [
    { state: "submitted", text: undefined },
    w("Run r started: 3 item(s) of humaneval", d("run_started", 0)),
    w("Evaluating T/0 (1/3)", d("task_started", 0)),
    w("Evaluating T/1 (1/3)", d("task_started", 0)),
    w("Evaluating T/2 (1/3)", d("task_started", 0)),
    w("T/0: passed — 1/3 done, 1 passed", d("task_finished", 1)),
    w("Checkpoint written (1/3 done)", d("checkpoint_written", 1)),
    w("T/1: passed — 2/3 done, 2 passed", d("task_finished", 2)),
    w("Checkpoint written (2/3 done)", d("checkpoint_written", 2)),
    w("Still running: 2/3 done, 2 passed (no runner event for 30 s)", d("heartbeat", 2)),
    w("Still running: 2/3 done, 2 passed (no runner event for 30 s)", d("heartbeat", 2)),
    w("T/2: failed — 3/3 done, 2 passed", d("task_finished", 3, 2)),
    w("Checkpoint written (3/3 done)", d("checkpoint_written", 3, 2)),
    { state: "completed", text: "humaneval run r: exit 0" },
  ];
}

function play(display: ReturnType<typeof createSmokeDisplay>, clock: { t: number }): void {
  for (const u of updates()) {
    clock.t += 100;
    display.update(u, clock.t / 1000);
  }
  display.endProgress();
  display.result(["run_id=r", "smoke_ok=true"]);
}

describe("smoke display", () => {
  test("mode: --json, a terminal → bar, NO_COLOR or a pipe → plain", () => {
    expect(chooseSmokeDisplayMode({ isTTY: true }, {}, true)).toBe("json");
    expect(chooseSmokeDisplayMode({ isTTY: true }, {}, false)).toBe("bar");
    expect(chooseSmokeDisplayMode({ isTTY: true }, { NO_COLOR: "1" }, false)).toBe("plain");
    expect(chooseSmokeDisplayMode({}, {}, false)).toBe("plain");
  });

  test("plain: no per-item start or checkpoint lines, no repeated line, finished items bounded in rate, the last always", () => {
    const out = new FakePipe();
    const clock = { t: 0 };
    play(
      createSmokeDisplay("plain", { stdout: out }, () => clock.t),
      clock,
    );
    const text = out.text;
    expect(text).not.toContain("Evaluating");
    expect(text).not.toContain("Checkpoint written");
    expect(text.split("Still running").length - 1).toBe(1);
    // 100 ms apart: the first finished item prints, the second is within the interval, the last always prints.
    expect(text).toContain("T/0: passed — 1/3 done");
    expect(text).not.toContain("T/1: passed");
    expect(text).toContain("T/2: failed — 3/3 done, 2 passed");
    expect(text).toMatch(/^\[smoke\] +[\d.]+s working: Run r started/m);
    expect(text.trimEnd().split("\n").slice(-2)).toEqual(["run_id=r", "smoke_ok=true"]);
    expect(text).not.toMatch(/\x1b/);
  });

  test("bar: the count comes from the status data (not the text's 1/3), other lines above the bar, nothing left of it at the end", () => {
    const out = new FakeTty();
    const clock = { t: 0 };
    const display = createSmokeDisplay("bar", { stdout: out }, () => clock.t);
    display.say("starting");
    play(display, clock);
    expect(out.plain).toMatch(/\[smoke\] \[[^\]]+\] 2\/3 \| passed 2/);
    const screen = renderScreen(out.raw).filter((l) => l !== "");
    expect(screen.some((l) => l.includes("[smoke] ["))).toBe(false);
    expect(screen[0]).toBe("[smoke] starting");
    expect(screen.filter((l) => l.includes("Still running"))).toHaveLength(1);
    expect(screen.some((l) => l.includes("Evaluating") || l.includes("Checkpoint written"))).toBe(false);
    expect(screen.slice(-2)).toEqual(["run_id=r", "smoke_ok=true"]);
  });

  test("json: stdout holds only the summary object; the progress lines go to stderr", () => {
    const stdout = new FakePipe();
    const stderr = new FakePipe();
    const clock = { t: 0 };
    const display = createSmokeDisplay("json", { stdout, stderr }, () => clock.t);
    display.say("starting");
    play(display, clock);
    display.summary({ smoke_ok: true, exit_code: 0 });
    expect(stdout.text).toBe('{"smoke_ok":true,"exit_code":0}\n');
    expect(stderr.text).toContain("[smoke] starting");
    expect(stderr.text).not.toContain("smoke_ok=true");
  });
});

describe("a task that fails", () => {
  test("its final status line names the state only: the reason is said once, by the closing ✗ line", () => {
    const out = new FakePipe();
    const display = createSmokeDisplay("plain", { stdout: out }, () => 0);
    const reason = "Assessment failed (error), no score: participant http://127.0.0.1:9/ is unreachable";
    display.update({ state: "failed", text: reason }, 3.5);
    expect(out.text).toBe("[smoke]    3.5s failed\n");
    display.update({ state: "completed", text: "done" }, 4);
    expect(out.text).toContain("completed: done");
  });
});
