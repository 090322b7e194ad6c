/**
 * Grading in SWE-bench's terms (swebench/harness/grading.py): per-test success
 * and failure lists, FAIL_TO_PASS / PASS_TO_PASS rates and the resolution
 * status.
 */
import type { StatusMap, TestStatus } from "./log-parsers.js";

export type ResolutionStatus = "RESOLVED_FULL" | "RESOLVED_PARTIAL" | "RESOLVED_NO";

export interface TestGroup {
  success: string[];
  failure: string[];
}

export interface TestsStatus {
  FAIL_TO_PASS: TestGroup;
  PASS_TO_PASS: TestGroup;
  FAIL_TO_FAIL: TestGroup;
  PASS_TO_FAIL: TestGroup;
}

// A FAIL_TO_PASS test must now pass; XFAIL counts (the test expected to fail did).
const F2P_SUCCESS: ReadonlySet<TestStatus> = new Set(["PASSED", "XFAIL"]);
// A PASS_TO_PASS test must not break; a skip is not a break.
const P2P_SUCCESS: ReadonlySet<TestStatus> = new Set(["PASSED", "XFAIL", "SKIPPED"]);

function split(tests: string[], statuses: StatusMap, ok: ReadonlySet<TestStatus>): TestGroup {
  const group: TestGroup = { success: [], failure: [] };
  for (const t of tests) {
    const s = statuses[t];
    // A test missing from the log (not collected, crash, timeout) is a failure.
    (s !== undefined && ok.has(s) ? group.success : group.failure).push(t);
  }
  return group;
}

/** Success/failure lists of an instance's tests given the parsed log. */
export function testsStatus(f2p: string[], p2p: string[], statuses: StatusMap): TestsStatus {
  return {
    FAIL_TO_PASS: split(f2p, statuses, F2P_SUCCESS),
    PASS_TO_PASS: split(p2p, statuses, P2P_SUCCESS),
    // We have no FAIL_TO_FAIL / PASS_TO_FAIL lists in the instance data; SWE-bench leaves them empty too by default.
    FAIL_TO_FAIL: { success: [], failure: [] },
    PASS_TO_FAIL: { success: [], failure: [] },
  };
}

/** success / (success + failure); an empty group counts as 1, as in SWE-bench. */
export function groupRate(g: TestGroup): number {
  const total = g.success.length + g.failure.length;
  return total === 0 ? 1 : g.success.length / total;
}

export function resolutionStatus(status: TestsStatus): ResolutionStatus {
  const f2p = groupRate(status.FAIL_TO_PASS);
  const p2p = groupRate(status.PASS_TO_PASS);
  if (f2p === 1 && p2p === 1) return "RESOLVED_FULL";
  if (f2p < 1 && f2p > 0 && p2p === 1) return "RESOLVED_PARTIAL";
  return "RESOLVED_NO";
}
