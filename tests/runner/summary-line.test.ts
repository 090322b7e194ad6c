import { describe, expect, it } from "vitest";
import { readableSummaryLine } from "../../src/runner/summary-line.js";

const rows = (...statuses: string[]) => statuses.map((status) => ({ status }));

describe("the run's one-line summary for people", () => {
  it("names the benchmark and run, the score, the items by outcome and the output directory", () => {
    expect(
      readableSummaryLine({
        benchmark: "humaneval",
        runId: "r1",
        out: "results/humaneval/r1",
        interrupted: false,
        error: null,
        results: {
          rows: rows("passed", "failed", "passed", "timeout"),
          aggregate: { accuracy: 0.5, failure_modes: {} },
        },
      }),
    ).toBe("humaneval run r1: accuracy 0.5000; 4 items: 2 passed, 1 failed, 1 timeout; out results/humaneval/r1");
  });

  it("reads the score from the benchmark's own metric", () => {
    const line = readableSummaryLine({
      benchmark: "swebench",
      runId: "s",
      out: "o",
      scoreMetric: "resolved_rate",
      interrupted: false,
      results: { rows: rows("RESOLVED_FULL"), aggregate: { resolved_rate: 1, accuracy: 0.25, failure_modes: {} } },
    });
    expect(line).toBe("swebench run s: resolved_rate 1; 1 item: 1 RESOLVED_FULL; out o");
  });

  it("says why there is no score: status error, interruption, a metric with no value", () => {
    expect(
      readableSummaryLine({
        benchmark: "humaneval",
        runId: "r",
        out: "o",
        interrupted: false,
        error: { code: "E_TOOLS_MISSING", message: "python3 not found" },
      }),
    ).toBe("humaneval run r: status error, no score [E_TOOLS_MISSING]: python3 not found; out o");
    expect(readableSummaryLine({ benchmark: "redcode", runId: "r", out: "o", interrupted: true })).toBe(
      "redcode run r: interrupted, no score (`--resume` continues from the checkpoint); out o",
    );
    expect(
      readableSummaryLine({
        benchmark: "humaneval",
        runId: "r",
        out: "o",
        interrupted: false,
        results: { rows: [], aggregate: { accuracy: null, failure_modes: {} } },
      }),
    ).toBe("humaneval run r: accuracy n/a; 0 items; out o");
  });
});
