import { describe, expect, it } from "vitest";
import { resolutionStatus, testsStatus } from "../../../src/benchmarks/swebench/grading.js";
import { runReport, aggregateSwebench } from "../../../src/benchmarks/swebench/report.js";
import type { ItemResult } from "../../../src/runner/benchmark.js";
import { checkAgainst } from "../../../src/util/schema.js";

describe("SWE-bench grading", () => {
  it("F2P succeeds on PASSED/XFAIL only; missing and SKIPPED fail", () => {
    const s = testsStatus(["a", "b", "c", "d"], [], { a: "PASSED", b: "XFAIL", c: "SKIPPED" });
    expect(s.FAIL_TO_PASS).toEqual({ success: ["a", "b"], failure: ["c", "d"] });
  });
  it("P2P also accepts SKIPPED", () => {
    const s = testsStatus([], ["a", "b", "c"], { a: "SKIPPED", b: "XFAIL", c: "ERROR" });
    expect(s.PASS_TO_PASS).toEqual({ success: ["a", "b"], failure: ["c"] });
  });
  it("FULL / PARTIAL / NO as SWE-bench; empty lists count as 1", () => {
    expect(resolutionStatus(testsStatus([], [], {}))).toBe("RESOLVED_FULL");
    expect(resolutionStatus(testsStatus(["a", "b"], ["p"], { a: "PASSED", p: "PASSED" }))).toBe("RESOLVED_PARTIAL");
    expect(resolutionStatus(testsStatus(["a", "b"], ["p"], { a: "PASSED", b: "PASSED" }))).toBe("RESOLVED_NO");
    expect(resolutionStatus(testsStatus(["a"], ["p"], { p: "PASSED" }))).toBe("RESOLVED_NO");
  });
});

describe("run report", () => {
  const row = (id: string, status: string, extra: Record<string, unknown> = {}): ItemResult => ({
    id,
    status,
    passed: status === "RESOLVED_FULL",
    elapsed_seconds: 1,
    submitted: true,
    patch_exists: status !== "EMPTY_PATCH",
    patch_successfully_applied: status.startsWith("RESOLVED"),
    ...extra,
  });
  it("classifies as the official harness: apply failures and timeouts are errors, a missing prediction is incomplete", () => {
    const rows = [
      row("a", "RESOLVED_FULL"),
      row("b", "RESOLVED_NO"),
      row("c", "EMPTY_PATCH"),
      row("d", "TIMEOUT"),
      row("e", "PATCH_APPLY_FAILED"),
      row("f", "ERROR", { submitted: false, patch_exists: false }),
    ];
    const r = runReport(rows);
    expect(r).toMatchObject({
      schema_version: 2,
      total_instances: 6,
      submitted_instances: 5,
      completed_instances: 2,
      resolved_instances: 1,
      unresolved_instances: 1,
      empty_patch_instances: 1,
      error_instances: 2,
      completed_ids: ["a", "b"],
      resolved_ids: ["a"],
      unresolved_ids: ["b"],
      empty_patch_ids: ["c"],
      error_ids: ["d", "e"],
      incomplete_ids: ["f"],
      submitted_ids: ["a", "b", "c", "d", "e"],
    });
    expect(checkAgainst("swebench_run_report.schema.json", r)).toEqual([]);
    const agg = aggregateSwebench(rows);
    expect(agg["resolved_rate"]).toBeCloseTo(1 / 6);
    // Items with a non-empty patch: a, b, d, e; applied: a, b (d timed out, but rows here carry no apply_strategy).
    expect(agg["patch_apply_rate"]).toBeCloseTo(2 / 4);
    expect(aggregateSwebench([row("x", "TIMEOUT", { apply_strategy: "git_apply" })])["patch_apply_rate"]).toBe(1);
  });
  it("lists advisory infrastructure signatures of unresolved instances only", () => {
    const r = runReport([
      row("a", "RESOLVED_NO", { infra_signature: { reason: "out_of_memory", environment: true } }),
      row("b", "RESOLVED_FULL", { infra_signature: { reason: "missing_module", environment: false } }),
      row("c", "TIMEOUT", { infra_signature: { reason: "missing_module", environment: false } }),
    ]);
    expect(r).toMatchObject({
      infra_failure_ids: ["a"],
      ambiguous_failure_ids: ["c"],
      failure_reasons: { a: "out_of_memory", c: "missing_module" },
    });
  });
});
