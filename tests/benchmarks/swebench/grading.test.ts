import { describe, expect, it } from "vitest";
import { resolutionStatus, testsStatus } from "../../../src/benchmarks/swebench/grading.js";
import { runReport, aggregateSwebench } from "../../../src/benchmarks/swebench/report.js";
import type { ItemResult } from "../../../src/runner/benchmark.js";

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
  const row = (id: string, status: string, patch = true): ItemResult => ({
    id, status, passed: status === "RESOLVED_FULL", elapsed_seconds: 1, patch_exists: patch,
    patch_successfully_applied: patch && status !== "PATCH_APPLY_FAILED",
  });
  it("counts and lists ids in SWE-bench's schema_version 2 vocabulary", () => {
    const rows = [row("a", "RESOLVED_FULL"), row("b", "RESOLVED_NO"), row("c", "EMPTY_PATCH", false), row("d", "TIMEOUT"), row("e", "PATCH_APPLY_FAILED")];
    const r = runReport(rows);
    expect(r).toMatchObject({
      schema_version: 2, total_instances: 5, submitted_instances: 4, completed_instances: 3, resolved_instances: 1,
      unresolved_instances: 2, empty_patch_instances: 1, error_instances: 1,
      resolved_ids: ["a"], unresolved_ids: ["b", "e"], empty_patch_ids: ["c"], error_ids: ["d"], incomplete_ids: ["c", "d"],
    });
    const agg = aggregateSwebench(rows);
    expect(agg["resolved_rate"]).toBeCloseTo(0.2);
    expect(agg["patch_apply_rate"]).toBeCloseTo(3 / 4);
  });
});
