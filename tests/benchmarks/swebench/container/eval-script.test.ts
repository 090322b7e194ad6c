import { describe, expect, it } from "vitest";
import { execFileSync } from "node:child_process";
import { imageFor, officialInstanceKey } from "../../../../src/benchmarks/swebench/container/image-name.js";
import {
  applyScript,
  appliedWith,
  CONTAINER_APPLY_COMMANDS,
  containerApplyCommands,
  PREPARE_EXIT,
  testPatchScript,
  testScript,
} from "../../../../src/benchmarks/swebench/container/eval-script.js";
import { ruleSet } from "../../../../src/benchmarks/swebench/rules.js";

describe("image names", () => {
  it("follow the official convention: lower-cased id, `__` as `_1776_`, swebench namespace, arch", () => {
    expect(officialInstanceKey("django__django-11099")).toBe("django_1776_django-11099");
    expect(imageFor("django__django-11099", { arch: "x86_64" })).toBe(
      "swebench/sweb.eval.x86_64.django_1776_django-11099:latest",
    );
    expect(imageFor("Sphinx-Doc__sphinx-8721", { arch: "arm64" })).toBe(
      "swebench/sweb.eval.arm64.sphinx-doc_1776_sphinx-8721:latest",
    );
  });
  it("take a template and a per-instance override", () => {
    const choice = { template: "reg.local/{instance_id}:{arch}", overrides: { "a__b-1": "mine:1" }, arch: "x86_64" };
    expect(imageFor("a__b-2", choice)).toBe("reg.local/a__b-2:x86_64");
    expect(imageFor("a__b-1", choice)).toBe("mine:1");
  });
});

describe("container scripts", () => {
  const apply = applyScript({ patchTargets: ["src/a.py", "it's.py"] });
  const testPatch = testPatchScript({
    baseCommit: "abc123",
    resetFiles: ["tests/test_x.py"],
    newFiles: ["tests/test_new.py"],
  });
  const test = testScript({
    evalCommands: ["export LANG=en_US.UTF-8"],
    testCommand: "python3 -m pytest -rA tests/test_x.py",
    testEnv: { PYTHONHASHSEED: "0" },
  });
  it("apply is valid bash: the default release's (5.0.2) commands in order, the tree put back between them", () => {
    execFileSync("bash", ["-n"], { input: apply });
    const order = [
      "git apply --verbose /a2a-eval/model.patch",
      "git checkout -- . ; git clean -fd",
      "git apply --verbose --3way /a2a-eval/model.patch",
      "git apply --verbose --reject /a2a-eval/model.patch",
      "patch --batch --forward --fuzz=5 -p1 -i /a2a-eval/model.patch",
      "git apply --check --reverse /a2a-eval/model.patch",
      `exit ${PREPARE_EXIT.APPLY_FAILED}`,
      'exit "$exit_applied"',
    ];
    const at = order.map((x) => apply.indexOf(x));
    expect(
      at.every((i) => i >= 0),
      JSON.stringify(at),
    ).toBe(true);
    expect([...at].sort((a, b) => a - b)).toEqual(at);
    expect(apply).not.toContain("test.patch");
  });
  it("test-patch is valid bash: reset to base_commit, new files removed, then test_patch", () => {
    execFileSync("bash", ["-n"], { input: testPatch });
    const order = [
      "git checkout -q 'abc123' -- 'tests/test_x.py'",
      "rm -rf -- 'tests/test_new.py'",
      "git apply --verbose /a2a-eval/test.patch",
    ];
    const at = order.map((x) => testPatch.indexOf(x));
    expect(
      at.every((i) => i >= 0),
      JSON.stringify(at),
    ).toBe(true);
    expect([...at].sort((a, b) => a - b)).toEqual(at);
    expect(testPatch).not.toContain("model.patch");
  });
  it("the harness steps report by exit status only, which names the strategy", () => {
    expect(apply + testPatch).not.toMatch(/>>>>>/);
    expect(CONTAINER_APPLY_COMMANDS.map((_, i) => appliedWith(PREPARE_EXIT.APPLIED_BASE + i))).toEqual([
      "git_apply",
      "git_apply_3way",
      "git_apply_reject",
      "patch_fuzz_forward",
    ]);
    expect(appliedWith(PREPARE_EXIT.ALREADY_APPLIED)).toBe("already_applied");
    const v4 = ruleSet("4.1.0").apply;
    expect(containerApplyCommands(v4).map((_, i) => appliedWith(PREPARE_EXIT.APPLIED_BASE + i, v4))).toEqual([
      "git_apply",
      "git_apply_reject",
      "patch_fuzz",
    ]);
    expect(appliedWith(PREPARE_EXIT.ALREADY_APPLIED, v4)).toBeNull();
    expect(
      [null, 0, 1, PREPARE_EXIT.APPLY_FAILED, PREPARE_EXIT.TEST_PATCH_FAILED, PREPARE_EXIT.NO_TESTBED].map((c) =>
        appliedWith(c),
      ),
    ).toEqual([null, null, null, null, null, null]);
  });
  it("each release's apply script: 5.0.2 resets between attempts, uses --forward and the reverse check; 4.1.0 does neither", () => {
    const v5 = applyScript({ patchTargets: ["a.py"], plan: ruleSet("5.0.2").apply });
    const v4 = applyScript({ patchTargets: ["a.py"], plan: ruleSet("4.1.0").apply });
    for (const s of [v5, v4]) execFileSync("bash", ["-n"], { input: s });
    expect(v5).toContain("git apply --verbose --3way");
    expect(v5).toContain("patch --batch --forward --fuzz=5 -p1 -i");
    expect(v5).toContain("git checkout -- . ; git clean -fd");
    expect(v5).toContain("git apply --check --reverse");
    expect(v4).not.toMatch(/--3way|--forward|--check --reverse|git clean/);
    expect(v4).toContain("patch --batch --fuzz=5 -p1 -i");
  });
  it("the test script runs eval_commands, then the test command, and prints no marker", () => {
    execFileSync("bash", ["-n"], { input: test });
    expect(test).not.toMatch(/>>>>>|nonce/);
    expect(test.indexOf("export LANG=en_US.UTF-8")).toBeLessThan(test.indexOf("python3 -m pytest"));
    expect(test).toContain("export PYTHONHASHSEED='0'");
  });
  it("refuses an environment name that is not a variable", () => {
    expect(() => testScript({ evalCommands: [], testCommand: "true", testEnv: { "A;rm": "x" } })).toThrow(/variable/);
  });
});
