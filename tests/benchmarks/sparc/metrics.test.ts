import { describe, expect, it } from "vitest";
import { planPasses } from "../../../src/benchmarks/sparc/pass-rule.js";
import { ourMetrics, planMetrics } from "../../../src/benchmarks/sparc/metrics.js";
import { judgeOutcome } from "../../../src/benchmarks/sparc/execute-case.js";
import { buildSparcResult } from "../../../src/benchmarks/sparc/result.js";
import { checkAgainst } from "../../../src/util/schema.js";
import type { ExecOutcome } from "../../../src/sandbox/types.js";
import type { SparcRow } from "../../../src/benchmarks/sparc/row.js";

const ok = (o: Partial<ExecOutcome>): ExecOutcome => ({
  exitCode: 0,
  signal: null,
  timedOut: false,
  isCanceled: false,
  outputLimitExceeded: false,
  durationMs: 100,
  stdoutTail: "",
  stderrTail: "",
  ...o,
});
const ctx = { type: "humaneval" as const, name: "t" };

describe("the plan's pass rule", () => {
  it("passes on trimmed equality or containment of the trimmed expectation, and nothing else", () => {
    expect(planPasses("  45\n", "45")).toBe(true);
    expect(planPasses("result: 2,4,6\n", "2,4,6\n")).toBe(true);
    expect(planPasses("4\n", "5")).toBe(false);
    expect(planPasses("ABC\n", "abc")).toBe(false);
    // Kept for compatibility: an empty expectation passes anything.
    expect(planPasses("whatever", "   ")).toBe(true);
  });

  it("ignores the exit status, as the plan did, but the row records the error", () => {
    const row = judgeOutcome(
      { id: "a", input: "", expectedOutput: "done" },
      ok({ exitCode: 1, stdoutTail: "done\n", stderrTail: "Traceback\nValueError: x" }),
      ctx,
    );
    expect(row.passed).toBe(true);
    expect(row.status).toBe("passed");
    expect(row.error).toBe("exit code 1: Traceback\nValueError: x");
  });
});

describe("row classification", () => {
  it("tells wrong output, runtime error, timeout and sandbox failure apart", () => {
    const tc = { id: "a", input: "", expectedOutput: "5" };
    expect(judgeOutcome(tc, ok({ stdoutTail: "4" }), ctx)).toMatchObject({
      status: "failed",
      failure_mode: "model_wrong_output",
      error: null,
    });
    expect(judgeOutcome(tc, ok({ exitCode: 1, stderrTail: "boom" }), ctx)).toMatchObject({
      status: "error",
      limit_breach: false,
      failure_mode: "model_runtime_error",
    });
    expect(judgeOutcome(tc, ok({ exitCode: 1, stderrTail: "MemoryError" }), ctx)).toMatchObject({
      status: "error",
      limit_breach: true,
      failure_mode: "safety_memory_limit",
    });
    expect(judgeOutcome(tc, ok({ exitCode: null, signal: "SIGKILL" }), ctx)).toMatchObject({
      limit_breach: true,
      failure_mode: "safety_memory_limit",
    });
    expect(
      judgeOutcome(tc, ok({ exitCode: null, signal: "SIGKILL", outputLimitExceeded: true, stdoutTail: "5" }), ctx),
    ).toMatchObject({
      status: "passed",
      limit_breach: true,
      failure_mode: "safety_output_limit",
    });
    expect(
      judgeOutcome(
        { ...tc, timeout: 1500 },
        ok({ exitCode: null, signal: "SIGKILL", timedOut: true, durationMs: 1502 }),
        ctx,
      ),
    ).toMatchObject({
      status: "timeout",
      limit_breach: false,
      failure_mode: "timeout",
      error: "timed out after 1500 ms",
      timeout_ms: 1500,
    });
    expect(judgeOutcome(tc, ok({ infraError: "bwrap missing" }), ctx)).toMatchObject({
      status: "skipped",
      failure_mode: "infrastructure_sandbox",
    });
    // The plan's default timeouts: 60 s for swebench, 30 s otherwise.
    expect(judgeOutcome(tc, ok({}), { type: "swebench", name: "s" }).timeout_ms).toBe(60_000);
    expect(judgeOutcome(tc, ok({}), ctx).timeout_ms).toBe(30_000);
  });
});

function row(p: Partial<SparcRow>): SparcRow {
  return {
    id: "x",
    status: "passed",
    passed: true,
    elapsed_seconds: 0,
    language: "python",
    benchmark_type: "humaneval",
    benchmark_name: "t",
    execution_ms: 0,
    timeout_ms: 1000,
    output: "",
    limit_breach: false,
    exit_code: 0,
    error: null,
    ...p,
  };
}

describe("metrics", () => {
  const rows: SparcRow[] = [
    row({ id: "p1", language: "python", execution_ms: 250 }),
    row({ id: "p2", language: "python", execution_ms: 750 }),
    row({ id: "p3", language: "python", status: "failed", passed: false, execution_ms: 100 }),
    row({
      id: "j1",
      language: "javascript",
      status: "timeout",
      passed: false,
      execution_ms: 1000,
      error: "timed out after 1000 ms",
    }),
    row({ id: "s1", language: "typescript", status: "skipped", passed: false, error: "sandbox failure: x" }),
    row({
      id: "e1",
      language: "javascript",
      status: "error",
      passed: false,
      execution_ms: 30,
      limit_breach: true,
      error: "exit code 1: MemoryError; PermissionError: permission denied",
    }),
  ];

  it("ours: accuracy over executed, efficiency from the median time share, safety from limit breaches, adaptability per language", () => {
    const m = ourMetrics(rows);
    expect(m.accuracy).toBeCloseTo(2 / 5);
    // time/timeout of executed cases: 0.25, 0.75, 0.1, 1.0, 0.03 → median 0.25.
    expect(m.efficiency).toBeCloseTo(0.75);
    expect(m.safety).toBeCloseTo(1 - 1 / 5);
    // python 2/3, javascript 0/2, typescript absent (skipped only).
    expect(m.adaptability).toBeCloseTo((2 / 3 + 0) / 2);
  });

  it("the plan's formulas, reproduced for comparison", () => {
    const views = rows.map((r) => ({
      passed: r.passed,
      executionTime: r.execution_ms,
      ...(r.error ? { error: r.error } : {}),
    }));
    const m = planMetrics("humaneval", rows.length, views);
    expect(m.accuracy).toBeCloseTo(2 / 6);
    expect(m.adaptability).toBeCloseTo(2 / 6);
    const avg = (250 + 750 + 100 + 1000 + 0 + 30) / 6;
    expect(m.efficiency).toBeCloseTo(1 - avg / 30_000);
    expect(m.safety).toBeCloseTo(1 - 1 / 6); // "permission" (case-sensitive) in e1 only
    expect(planMetrics("swebench", 1, [{ passed: false, executionTime: 90_000 }]).efficiency).toBe(0);
  });

  it("builds a BenchmarkResult the schema accepts, with the plan's metrics only when asked", () => {
    const plain = buildSparcResult(rows, { type: "humaneval", name: "t", planMetrics: false });
    expect(plain).toMatchObject({ totalTests: 6, passedTests: 2, failedTests: 3, skippedTests: 1 });
    expect(plain.planMetrics).toBeUndefined();
    expect(checkAgainst("sparc_benchmark_result.schema.json", plain)).toEqual([]);
    const both = buildSparcResult(rows, { type: "humaneval", name: "t", planMetrics: true, runId: "r1" });
    expect(both.planMetrics?.accuracy).toBeCloseTo(2 / 6);
    expect(both.metricDefinitions?.["plan.safety"]).toMatch(/^SPARC 2.0 plan:/);
    expect(checkAgainst("sparc_benchmark_result.schema.json", both)).toEqual([]);
  });
});
