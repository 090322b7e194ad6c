import { describe, expect, test } from "vitest";
import {
  barReporter,
  chooseDisplayMode,
  eventLineReporter,
  plainReporter,
  summaryCollector,
  RUN_BAR_FORMAT,
  formatSummaryTable,
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
    const final = screen.indexOf("humaneval: 3/3 done, 3 passed, 0 failed, 0 errored in 0.0 s");
    expect(final).toBeGreaterThan(second);
    expect(screen.slice(final + 1).some((l) => /^accuracy\s+\| 1$/.test(l))).toBe(true);
    // While it ran, the bar was drawn with the counts (seen in the raw stream).
    expect(out.plain).toMatch(/humaneval \[[^\]]+\] 1\/3 \| passed 1 failed 0 errored 0/);
    expect(raw.lastIndexOf("\x1b[?25h")).toBeGreaterThan(raw.lastIndexOf("\x1b[?25l"));
    // A log line after the end goes straight out.
    logger.info("after the end");
    expect(out.plain.endsWith('after the end\n    component: "runner"\n')).toBe(true);
  });

  test("close() twice prints the summary once", () => {
    const out = new FakeTty();
    const progress = barReporter(out, new TerminalBar(out, { format: RUN_BAR_FORMAT }));
    progress.onEvent(started);
    progress.onEvent(finished(1, 1));
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
      "humaneval: 4/10 done, 4 passed, 0 failed, 0 errored, ETA 3 s",
      "humaneval: 8/10 done, 8 passed, 0 failed, 0 errored, ETA 1 s",
      "humaneval: 10/10 done, 10 passed, 0 failed, 0 errored, ETA 0 s",
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
    expect(out.text.trim().split("\n").at(-1)).toBe("humaneval: 1/3 done, 0 passed, 1 failed, 0 errored, ETA 1 s");
  });
});

describe("counts and notes", () => {
  const item = (done: number, status: string, passed: boolean, passedSoFar: number): RunnerEvent => ({
    event: "task_finished",
    task_id: `T/${done}`,
    i: done - 1,
    status,
    passed,
    done,
    total: 4,
    passed_so_far: passedSoFar,
  });

  test("passed, failed (the participant's) and errored (ours) are counted apart, live on the bar and in the lines", () => {
    const out = new FakeTty();
    const bar = new TerminalBar(out, { format: RUN_BAR_FORMAT });
    const progress = barReporter(out, bar, () => 0);
    progress.onEvent({ ...started, total: 4 });
    progress.onEvent(item(1, "passed", true, 1));
    progress.onEvent(item(2, "failed", false, 1));
    bar.log("mark 2"); // a log line redraws the bar at once (otherwise at its frame rate)
    expect(out.plain).toMatch(/2\/4 \| passed 1 failed 1 errored 0/);
    progress.onEvent(item(3, "error", false, 1));
    bar.log("mark 3");
    expect(out.plain).toMatch(/3\/4 \| passed 1 failed 1 errored 1/);
    progress.onEvent(item(4, "timeout", false, 1));
    progress.close();
    expect(renderScreen(out.raw)).toContain("humaneval: 4/4 done, 1 passed, 2 failed, 1 errored in 0.0 s");
  });

  test("an item is counted by its failure mode: a participant's `error` (an exception) is a failure, ours an error", () => {
    const out = new FakePipe();
    const progress = plainReporter(out, 2000, () => 0);
    progress.onEvent({ ...started, total: 4 });
    progress.onEvent({ ...item(1, "error", false, 0), failure_mode: "model_syntax_error" });
    progress.onEvent({ ...item(2, "error", false, 0), failure_mode: "model_exception" });
    progress.onEvent({ ...item(3, "error", false, 0), failure_mode: "infrastructure_sandbox" });
    progress.onEvent(item(4, "error", false, 0)); // no failure mode (another runner): by its status
    progress.close();
    expect(out.text.trim().split("\n").at(-1)).toMatch(/^humaneval: 4\/4 done, 0 passed, 2 failed, 2 errored/);
  });

  test("samples beyond the dataset: said once, on the bar's screen and in plain lines", () => {
    const capped: RunnerEvent = { ...started, total: 12, samples_requested: 40, dataset_items: 12 };
    const pipe = new FakePipe();
    const plain = plainReporter(pipe, 2000, () => 0);
    plain.onEvent(capped);
    plain.close();
    expect(pipe.text.split("\n")).toContain("humaneval: --samples 40 exceeds the dataset's 12 item(s); running all 12");
    const tty = new FakeTty();
    const bar = barReporter(tty, new TerminalBar(tty, { format: RUN_BAR_FORMAT }), () => 0);
    bar.onEvent(capped);
    bar.close();
    expect(tty.plain.split("--samples 40 exceeds").length - 1).toBe(1);
    const quiet = new FakePipe();
    const p2 = plainReporter(quiet, 2000, () => 0);
    p2.onEvent(started);
    p2.close();
    expect(quiet.text).not.toContain("exceeds");
  });

  test("the summary table never shows completions as tasks: with n per task, the completion counters say so", () => {
    const table = formatSummaryTable({ accuracy: 0.5, passed: 12, total: 24, tasks: 12, n: 2 });
    expect(table).toMatch(/^completions\.passed\s+\| 12$/m);
    expect(table).toMatch(/^completions\.total\s+\| 24$/m);
    expect(table).toMatch(/^tasks\s+\| 12$/m);
    expect(table).not.toMatch(/^passed\s/m);
    // Without tasks and n, the counters are the items'.
    expect(formatSummaryTable({ passed: 3, total: 4 })).toMatch(/^passed\s+\| 3$/m);
  });
});

describe("a run that finished no item", () => {
  test("shows no count and no table of dashes, on the bar or in plain lines", () => {
    const tty = new FakeTty();
    const bar = barReporter(tty, new TerminalBar(tty, { format: RUN_BAR_FORMAT }), () => 0);
    bar.onEvent(started);
    bar.close({ accuracy: null, passed: 0 });
    expect(tty.plain).not.toContain("metric");
    expect(tty.plain).not.toContain("0/3 done");
    const pipe = new FakePipe();
    const plain = plainReporter(pipe, 2000, () => 0);
    plain.onEvent(started);
    plain.close({ accuracy: null, passed: 0 });
    expect(pipe.text).toBe("humaneval: 3 item(s)\n");
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
