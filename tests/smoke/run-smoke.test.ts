import { describe, expect, it } from "vitest";
import { summaryLines } from "../../src/smoke/run-smoke.js";

describe("summaryLines", () => {
  it("a scored bundle shows its metrics", () => {
    const lines = summaryLines({
      run_id: "r",
      exit_code: 0,
      status: "ok",
      metrics: { accuracy: 0.5 },
      errors: [],
      artifacts: { results_path: "/x/results.json" },
    });
    expect(lines).toEqual([
      "run_id=r",
      "exit_code=0",
      "metrics.accuracy=0.5",
      "errors=0",
      'artifacts.results_path="/x/results.json"',
    ]);
  });

  it("a bundle without a score shows its status, not a list of empty metrics", () => {
    const lines = summaryLines({
      run_id: "r",
      exit_code: 3,
      status: "error",
      metrics: { accuracy: null, passed: 0 },
      errors: [{}],
      artifacts: { results_path: "/x/results.json" },
    });
    expect(lines).toEqual([
      "run_id=r",
      "exit_code=3",
      "status=error (no score)",
      "errors=1",
      'artifacts.results_path="/x/results.json"',
    ]);
  });
});
