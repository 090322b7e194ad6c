import { describe, expect, it } from "vitest";
import { execFileSync } from "node:child_process";
import { imageFor, officialInstanceKey } from "../../../../src/benchmarks/swebench/container/image-name.js";
import { evalScript, OFFICIAL_MARKERS, readEvalLog } from "../../../../src/benchmarks/swebench/container/eval-script.js";

describe("image names", () => {
  it("follow the official convention: lower-cased id, `__` as `_1776_`, swebench namespace, arch", () => {
    expect(officialInstanceKey("django__django-11099")).toBe("django_1776_django-11099");
    expect(imageFor("django__django-11099", { arch: "x86_64" })).toBe("swebench/sweb.eval.x86_64.django_1776_django-11099:latest");
    expect(imageFor("Sphinx-Doc__sphinx-8721", { arch: "arm64" })).toBe("swebench/sweb.eval.arm64.sphinx-doc_1776_sphinx-8721:latest");
  });
  it("take a template and a per-instance override", () => {
    const choice = { template: "reg.local/{instance_id}:{arch}", overrides: { "a__b-1": "mine:1" }, arch: "x86_64" };
    expect(imageFor("a__b-2", choice)).toBe("reg.local/a__b-2:x86_64");
    expect(imageFor("a__b-1", choice)).toBe("mine:1");
  });
});

describe("eval script", () => {
  const script = evalScript({
    baseCommit: "abc123", testFiles: ["tests/test_x.py", "it's.py"], testCommand: "python3 -m pytest -rA tests/test_x.py",
    testEnv: { PYTHONHASHSEED: "0" }, markers: OFFICIAL_MARKERS,
  });
  it("is valid bash that applies the model patch with the official fallbacks in order, then resets tests and applies test_patch", () => {
    execFileSync("bash", ["-n"], { input: script });
    const order = ["conda activate testbed", "git apply --verbose /a2a-eval/model.patch", "git apply --verbose --reject /a2a-eval/model.patch",
      "patch --batch --fuzz=5 -p1 -i /a2a-eval/model.patch", "Patch Apply Failed", "git checkout 'abc123' -- 'tests/test_x.py' 'it'\\''s.py'",
      "git apply --verbose /a2a-eval/test.patch", "export PYTHONHASHSEED='0'", ">>>>> Start Test Output", "python3 -m pytest", ">>>>> End Test Output"];
    const at = order.map((s) => script.indexOf(s));
    expect(at.every((i) => i >= 0), JSON.stringify(at)).toBe(true);
    expect([...at].sort((a, b) => a - b)).toEqual(at);
  });
  it("refuses an environment name that is not a variable", () => {
    expect(() => evalScript({ baseCommit: "a", testFiles: [], testCommand: "true", testEnv: { "A;rm": "x" }, markers: OFFICIAL_MARKERS })).toThrow(/variable/);
  });
});

describe("reading the eval log", () => {
  const m = OFFICIAL_MARKERS;
  it("takes the apply status only before the start marker, and the test region between the markers", () => {
    const log = ["Checking patch a.py...", `${m.applied} git_apply_reject`, m.start, "PASSED t.py::a", `${m.applied} patch_fuzz`, m.applyFailed, m.end, `${m.exitCode} 1`].join("\n");
    const r = readEvalLog(log, m);
    expect(r).toMatchObject({ appliedWith: "git_apply_reject", applyFailed: false, started: true, testExitCode: 1 });
    expect(r.testOutput).toBe(["PASSED t.py::a", `${m.applied} patch_fuzz`, m.applyFailed].join("\n"));
  });
  it("reports a run cut short: started, no region", () => {
    expect(readEvalLog([`${m.applied} git_apply`, m.start, "PASSED t.py::a"].join("\n"), m)).toMatchObject({ started: true, testOutput: null, testExitCode: null });
    expect(readEvalLog(m.applyFailed, m)).toMatchObject({ appliedWith: null, applyFailed: true, started: false });
  });
});
