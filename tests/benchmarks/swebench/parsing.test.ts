import { describe, expect, it } from "vitest";
import { parseInstances, normaliseTestList } from "../../../src/benchmarks/swebench/instance.js";
import { parsePredictions } from "../../../src/benchmarks/swebench/predictions.js";
import { parsePytestLog } from "../../../src/benchmarks/swebench/log-parsers.js";
import { diffFiles } from "../../../src/benchmarks/swebench/test-spec.js";
import { extractDiff } from "../../../src/benchmarks/swebench/extract-diff.js";

const base = {
  instance_id: "o__r-1",
  repo: "o/r",
  base_commit: "abc",
  problem_statement: "p",
  test_patch: "diff --git a/t.py b/t.py\n",
};

describe("instances", () => {
  it("accepts FAIL_TO_PASS as a list and as a JSON-encoded string (SWE-bench's data files)", () => {
    const list = parseInstances(JSON.stringify([{ ...base, FAIL_TO_PASS: ["a"], PASS_TO_PASS: '["b", "c"]' }]), "x");
    expect(list[0]!.FAIL_TO_PASS).toEqual(["a"]);
    expect(list[0]!.PASS_TO_PASS).toEqual(["b", "c"]);
  });
  it("reads JSONL and names the bad line", () => {
    const text = JSON.stringify({ ...base, FAIL_TO_PASS: [], PASS_TO_PASS: [] }) + "\n{oops\n";
    expect(() => parseInstances(text, "f.jsonl")).toThrow(/line 2/);
  });
  it("rejects duplicates, missing fields and bad lists", () => {
    const one = { ...base, FAIL_TO_PASS: [], PASS_TO_PASS: [] };
    expect(() => parseInstances(JSON.stringify([one, one]), "f")).toThrow(/duplicate/);
    expect(() => parseInstances(JSON.stringify([{ ...one, base_commit: "" }]), "f")).toThrow(/base_commit/);
    expect(() => normaliseTestList("not json", "FAIL_TO_PASS", "w")).toThrow(/FAIL_TO_PASS/);
    // A numeric version would lose "3.0" vs "3"; the official files write strings.
    expect(() => parseInstances(JSON.stringify([{ ...one, version: 3.0 }]), "f")).toThrow(/version must be a string/);
    expect(
      parseInstances(JSON.stringify([{ ...one, version: "3.0", log_parser: "parse_log_django" }]), "f")[0],
    ).toMatchObject({ version: "3.0", log_parser: "parse_log_django" });
  });
});

describe("predictions", () => {
  it("reads a list, JSONL and an object keyed by id; null patch kept as null", () => {
    const p = { instance_id: "a", model_name_or_path: "m", model_patch: "diff" };
    expect(parsePredictions(JSON.stringify([p]), "f").get("a")?.model_patch).toBe("diff");
    expect(
      parsePredictions(
        JSON.stringify(p) + "\n" + JSON.stringify({ ...p, instance_id: "b", model_patch: null }),
        "f",
      ).get("b")?.model_patch,
    ).toBeNull();
    expect(parsePredictions(JSON.stringify({ a: p }), "f").get("a")?.model_name_or_path).toBe("m");
  });
});

describe("pytest log parser", () => {
  const log = [
    "tests/test_a.py::test_ok PASSED                                   [ 20%]",
    "tests/test_a.py::test_skip SKIPPED (no reason)                      [ 40%]",
    "tests/test_a.py::test_param[a b] FAILED                             [ 60%]",
    "=========================== short test summary info ============================",
    "PASSED tests/test_a.py::test_ok",
    "SKIPPED [1] tests/test_a.py:12: no reason",
    "XFAIL tests/test_a.py::test_xf - known",
    "FAILED tests/test_a.py::test_param[a b] - AssertionError: assert 1 == 2",
    "ERROR tests/test_b.py::test_setup - RuntimeError",
  ].join("\n");
  it("maps node ids to statuses from -rA summary and -v progress lines", () => {
    expect(parsePytestLog(log)).toEqual({
      "tests/test_a.py::test_ok": "PASSED",
      "tests/test_a.py::test_skip": "SKIPPED",
      "tests/test_a.py::test_param[a b]": "FAILED",
      "tests/test_a.py::test_xf": "XFAIL",
      "tests/test_b.py::test_setup": "ERROR",
    });
  });
});

describe("diff handling", () => {
  const diff = "diff --git a/x.py b/x.py\nindex 1..2 100644\n--- a/x.py\n+++ b/x.py\n@@ -1 +1 @@\n-a\n+b\n";
  it("lists the files a diff touches", () => {
    expect(diffFiles(diff + diff.replaceAll("x.py", "y/z.py"))).toEqual(["x.py", "y/z.py"]);
  });
  it("extracts a diff from a fenced block, from prose, and from a data part", () => {
    expect(extractDiff("Here is the fix:\n```diff\n" + diff + "```\nDone.")).toBe(diff);
    expect(extractDiff("Fix below.\n\n" + diff + "\nThis changes a to b.")).toBe(diff);
    expect(extractDiff("see data", [{ model_patch: diff }])).toBe(diff);
    expect(extractDiff("I could not find the bug.")).toBeNull();
  });
});
