import { describe, expect, test } from "vitest";
import {
  barReporter,
  chooseDisplayMode,
  eventLineReporter,
  plainReporter,
  summaryCollector,
  RUN_BAR_FORMAT,
} from "../../src/runner/progress.js";
import { TerminalBar } from "../../src/util/terminal-bar.js";
import { createLogger } from "../../src/util/logger.js";
import type { RunnerEvent } from "../../src/runner/protocol.js";
import { FakePipe, FakeTty, renderScreen } from "../support/fake-tty.js";

const started: RunnerEvent = { event: "run_started", run_id: "r", benchmark: "humaneval", total: 3 };
const finished = (done: number, passed: number): RunnerEvent => ({
  event: "task_finished",
  task_id: `T/${done}`,
  i: done - 1,
  status: "passed",
  passed: true,
  done,
  total: 3,
  passed_so_far: passed,
});

describe("chooseDisplayMode", () => {
  test("json wins; --events → A2A_EVENT lines; not a TTY → plain lines; a TTY → bar, or plain with NO_COLOR / TERM=dumb", () => {
    expect(chooseDisplayMode({ isTTY: true }, {}, true)).toBe("json");
    expect(chooseDisplayMode({}, {}, false, true)).toBe("events");
    expect(chooseDisplayMode({ isTTY: true }, {}, false, true)).toBe("events");
    // A pipe is read by a person unless --events says a program reads it.
    expect(chooseDisplayMode({}, {}, false)).toBe("plain");
    expect(chooseDisplayMode({ isTTY: false }, {}, false)).toBe("plain");
    expect(chooseDisplayMode({ isTTY: true }, {}, false)).toBe("bar");
    expect(chooseDisplayMode({ isTTY: true }, { NO_COLOR: "1" }, false)).toBe("plain");
    expect(chooseDisplayMode({ isTTY: true }, { NO_COLOR: "" }, false)).toBe("bar"); // no-color.org: empty does not count
    expect(chooseDisplayMode({ isTTY: true }, { TERM: "dumb" }, false)).toBe("plain");
  });
});

describe("bar display on a terminal", () => {
  test("log lines go above the bar (line cleared first), each once, in order; the bar gives way to the summary", () => {
    const out = new FakeTty();
    const bar = new TerminalBar(out, { format: RUN_BAR_FORMAT });
    const logger = createLogger({ component: "runner", destination: bar.sink(), color: false });
    const progress = barReporter(out, bar, () => 0);
    progress.onEvent(started);
    logger.info("first log line");
    progress.onEvent(finished(1, 1));
    logger.warn("second log line");
    progress.onEvent(finished(2, 2));
    progress.onEvent(finished(3, 3));
    progress.close({ accuracy: 1, passed: 3 });

    const raw = out.raw;
    for (const line of ["first log line", "second log line"]) expect(raw.split(line).length - 1).toBe(1);
    // What the terminal shows: every log line whole on its own row, no bar left anywhere, then the summary.
    const screen = renderScreen(raw).filter((l) => l !== "");
    expect(screen.some((l) => l.includes("humaneval ["))).toBe(false);
    const first = screen.findIndex((l) => /INFO.*: first log line$/.test(l));
    const second = screen.findIndex((l) => /WARN.*: second log line$/.test(l));
    expect(first).toBeGreaterThanOrEqual(0);
    expect(second).toBeGreaterThan(first);
    const final = screen.indexOf("humaneval: 3/3 done, 3 passed in 0.0 s");
    expect(final).toBeGreaterThan(second);
    expect(screen.slice(final + 1).some((l) => /^accuracy\s+\| 1$/.test(l))).toBe(true);
    // While it ran, the bar was drawn with the counts (seen in the raw stream).
    expect(out.plain).toMatch(/humaneval \[[^\]]+\] 1\/3 \| passed 1/);
    expect(raw.lastIndexOf("\x1b[?25h")).toBeGreaterThan(raw.lastIndexOf("\x1b[?25l"));
    // A log line after the end goes straight out.
    logger.info("after the end");
    expect(out.plain.endsWith('after the end\n    component: "runner"\n')).toBe(true);
  });

  test("close() twice prints the summary once", () => {
    const out = new FakeTty();
    const progress = barReporter(out, new TerminalBar(out, { format: RUN_BAR_FORMAT }));
    progress.onEvent(started);
    progress.close({ accuracy: 1 });
    progress.close({ accuracy: 1 });
    expect(out.plain.split("accuracy").length - 1).toBe(1);
  });
});

describe("plain display (NO_COLOR)", () => {
  test("no ANSI, at most one progress line per interval, the last item and the summary always", () => {
    let t = 0;
    const out = new FakePipe();
    const progress = plainReporter(out, 2000, () => t);
    progress.onEvent({ ...started, total: 10 });
    for (let done = 1; done <= 10; done++) {
      t = 500 * done;
      progress.onEvent({ ...finished(done, done), total: 10 });
    }
    progress.close({ accuracy: 1 });
    const lines = out.text.split("\n").filter((l) => l.startsWith("humaneval:"));
    expect(lines).toEqual([
      "humaneval: 10 item(s)",
      "humaneval: 4/10 done, 4 passed, ETA 3 s",
      "humaneval: 8/10 done, 8 passed, ETA 1 s",
      "humaneval: 10/10 done, 10 passed, ETA 0 s",
    ]);
    expect(out.text).toContain("accuracy");
    expect(out.text).not.toMatch(/\x1b/);
  });

  test("an interrupted run still ends with its count", () => {
    let t = 0;
    const out = new FakePipe();
    const progress = plainReporter(out, 2000, () => t);
    progress.onEvent(started);
    t = 100;
    progress.onEvent(finished(1, 0));
    progress.close();
    expect(out.text.trim().split("\n").at(-1)).toBe("humaneval: 1/3 done, 0 passed, ETA 1 s");
  });
});

describe("other modes", () => {
  test("events mode prints the runner protocol; json mode prints nothing and keeps the summary", () => {
    const out = new FakePipe();
    eventLineReporter(out).onEvent(started);
    expect(out.text).toMatch(/^A2A_EVENT:\{"event":"run_started"/);
    const c = summaryCollector();
    c.onEvent(started);
    c.close({ accuracy: 0.5 });
    expect(c.summary).toEqual({ accuracy: 0.5 });
  });
});
