import { describe, expect, it } from "vitest";
import { gradeTestRun, type TestRun } from "../../../src/benchmarks/swebench/verdict.js";
import { ruleSet } from "../../../src/benchmarks/swebench/rules.js";
import type { SwebenchInstance } from "../../../src/benchmarks/swebench/instance.js";

const inst: SwebenchInstance = {
  instance_id: "o__r-1",
  repo: "o/r",
  base_commit: "abc",
  problem_statement: "",
  test_patch: "",
  FAIL_TO_PASS: ["t.py::f"],
  PASS_TO_PASS: ["t.py::p"],
};
const run = (over: Partial<TestRun>): TestRun => ({
  inst,
  patch: "diff --git a/x b/x\n",
  modelName: "m",
  submitted: true,
  applyStrategy: "git_apply",
  testConfigFlags: [],
  framework: "a2a_pytest_verbose",
  rules: ruleSet("5.0.2"),
  preamble: "+ pytest",
  testOutput: "",
  exitCode: 0,
  timedOut: false,
  canceled: false,
  strictTests: false,
  timeoutSeconds: 3,
  ...over,
});
const passing = "PASSED t.py::f\nPASSED t.py::p\n";

describe("gradeTestRun (shared by the host and container paths)", () => {
  it("resolves a passing run and writes the nonce only into the harness's lines", () => {
    const { verdict, log } = gradeTestRun(run({ testOutput: passing }));
    expect(verdict).toMatchObject({
      status: "RESOLVED_FULL",
      error: null,
      applyStrategy: "git_apply",
      submitted: true,
    });
    expect(verdict.report).toMatchObject({ patch_successfully_applied: true, resolved: true });
    const nonce = /a2a-nonce=([0-9a-f]{32})/.exec(log.split("\n")[0]!)![1]!;
    expect(log).toContain(`>>>>> Test Exit Code: 0 a2a-nonce=${nonce}`);
  });
  it("draws a fresh nonce per run: markers printed by the tests, even nonce-shaped, stay inside the region", () => {
    const forged = `>>>>> End Test Output a2a-nonce=${"0".repeat(32)}\n>>>>> End Test Output\n`;
    const a = gradeTestRun(
      run({
        testOutput: "PASSED t.py::p\n" + forged + passing.replace("PASSED t.py::f", "FAILED t.py::f"),
        exitCode: 1,
      }),
    );
    expect(a.verdict).toMatchObject({ status: "RESOLVED_NO", failureMode: "model_tests_failed" });
    const b = gradeTestRun(run({ testOutput: passing }));
    expect(a.log.split("\n")[0]).not.toBe(b.log.split("\n")[0]);
  });
  it("a run killed from inside (no exit status, or a signal's) with no results is the model's failure", () => {
    expect(gradeTestRun(run({ exitCode: 137 })).verdict).toMatchObject({
      status: "RESOLVED_NO",
      failureMode: "model_test_run_killed",
      error: null,
    });
    expect(gradeTestRun(run({ exitCode: null })).verdict).toMatchObject({
      status: "RESOLVED_NO",
      failureMode: "model_test_run_killed",
    });
    expect(gradeTestRun(run({ exitCode: 2 })).verdict).toMatchObject({
      status: "RESOLVED_NO",
      failureMode: "model_no_test_results",
    });
  });
  it("timeouts are the model's; our sandbox failures and cancellations are errors, never scores", () => {
    expect(gradeTestRun(run({ timedOut: true, exitCode: null })).verdict).toMatchObject({
      status: "TIMEOUT",
      failureMode: "timeout",
    });
    // A run stopped at its limit is not resolved, whatever it printed before (as officially: the timeout
    // marker voids the log), and the row names the limit and the host's load.
    const stopped = gradeTestRun(run({ timedOut: true, exitCode: null, testOutput: passing }));
    expect(stopped.verdict).toMatchObject({ status: "TIMEOUT", failureMode: "timeout", report: { resolved: false } });
    expect(stopped.verdict.error).toMatch(/^tests timed out after \d+ s \(host load average [\d.]+ \(1 min\)/);
    expect(stopped.log).toMatch(/^>>>>> Tests Timed Out/m);
    expect(gradeTestRun(run({ infraError: "engine gone", testOutput: passing })).verdict).toMatchObject({
      status: "ERROR",
      failureMode: "infrastructure_sandbox",
      error: "sandbox: engine gone",
    });
    expect(gradeTestRun(run({ canceled: true, testOutput: passing })).verdict).toMatchObject({
      status: "ERROR",
      failureMode: "infrastructure_cancelled",
    });
  });
  it("strict_tests voids a resolved run's status whose patch changed how the tests run; report.json keeps the official verdict", () => {
    const flag = { kind: "hook_file" as const, path: "conftest.py", detail: "added" };
    const lax = gradeTestRun(run({ testOutput: passing, testConfigFlags: [flag] })).verdict;
    expect(lax).toMatchObject({ status: "RESOLVED_FULL", touchesTestConfig: ["conftest.py"], testConfigFlags: [flag] });
    const strict = gradeTestRun(run({ testOutput: passing, testConfigFlags: [flag], strictTests: true })).verdict;
    expect(strict).toMatchObject({
      status: "RESOLVED_NO",
      strictVoided: true,
      failureMode: "model_touched_test_config",
    });
    expect(strict.report.resolved).toBe(true);
  });
});
