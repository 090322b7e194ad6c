import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { execFile } from "node:child_process";
import { mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { evaluateLog, instanceReport, type GradeInput } from "../../../src/benchmarks/swebench/grading.js";
import { assembleHarnessLog, newNonce } from "../../../src/benchmarks/swebench/markers.js";
import { PYTEST_FAMILIES, summaryCounts } from "../../../src/benchmarks/swebench/pytest-summary.js";
import { ruleSet } from "../../../src/benchmarks/swebench/rules.js";
import { frameworkFor } from "../../../src/benchmarks/swebench/test-spec.js";
import { normaliseTestList } from "../../../src/benchmarks/swebench/instance.js";
import type { Framework } from "../../../src/benchmarks/swebench/log-parsers.js";
import {
  astropyFixture,
  djangoFixture,
  matplotlibFixture,
  officialLog,
  pytestFixture,
  requestsFixture,
  seabornFixture,
  sympyFixture,
  type Fixture,
} from "./fixtures/official-logs.js";

const v5 = ruleSet("5.0.2");
const v4 = ruleSet("4.1.0");

function harnessLog(testOutput: string, exitCode: number | null): string {
  return assembleHarnessLog({
    nonce: newNonce(),
    preamble: "+ git apply -v test.patch",
    testOutput,
    exitCode,
    timedOut: false,
  });
}

describe("pytest terminal summary lines", () => {
  it("reads the counts of current, older and coloured summaries", () => {
    expect(summaryCounts("======= 2 failed, 5 passed, 1 warning in 0.12s =======")).toEqual({
      failed: 2,
      passed: 5,
      warning: 1,
    });
    expect(summaryCounts("=== 1 passed, 2 pytest-warnings in 0.05 seconds ===")).toEqual({
      passed: 1,
      "pytest-warnings": 2,
    });
    expect(summaryCounts("== 3 passed, 1 skipped, 2 deselected, 1 xfailed, 1 xpassed in 75.20s (0:01:15) ==")).toEqual({
      passed: 3,
      skipped: 1,
      deselected: 2,
      xfailed: 1,
      xpassed: 1,
    });
    expect(
      summaryCounts(
        "\x1b[31m==== \x1b[31m\x1b[1m1 failed\x1b[0m, \x1b[32m4 passed\x1b[0m\x1b[31m in 0.03s\x1b[0m\x1b[31m ====\x1b[0m",
      ),
    ).toEqual({ failed: 1, passed: 4 });
    expect(summaryCounts("============================ no tests ran in 0.01s =============================")).toEqual(
      {},
    );
    expect(summaryCounts("=== 1 error in 0.20s ===")).toEqual({ error: 1 });
  });

  it("rejects other separator lines and plain text", () => {
    for (const line of [
      "=== short test summary info ===",
      "===== FAILURES =====",
      "=== test session starts ===",
      "1 passed in 0.01s",
      "=== warnings summary ===",
      "== 1 passed in 0.01s == trailing",
    ]) {
      expect(summaryCounts(line), line).toBeNull();
    }
  });
});

const HONEST = [
  "============================= test session starts ==============================",
  "collected 4 items",
  "",
  "tests/test_a.py .F.s                                                   [100%]",
  "",
  "=================================== FAILURES ===================================",
  "___________________________________ test_b ____________________________________",
  "    def test_b():",
  ">       assert 0",
  "E       assert 0",
  "=========================== short test summary info ============================",
  "PASSED tests/test_a.py::test_a",
  "PASSED tests/test_a.py::test_c",
  "SKIPPED [1] tests/test_a.py:9: later",
  "FAILED tests/test_a.py::test_b - assert 0",
  "==================== 1 failed, 2 passed, 1 skipped in 0.05s ====================",
].join("\n");

describe("harness logs: pytest's final summary closes the run (beyond the official harness)", () => {
  it("an honest run is graded, with its statuses", () => {
    const ev = evaluateLog(harnessLog(HONEST, 1), "parse_log_pytest");
    expect(ev.void).toBeNull();
    expect(ev.statuses["tests/test_a.py::test_b"]).toBe("FAILED");
  });

  it("PASSED lines after the final summary void the log (results_after_summary), for every pytest family; the official view of the same log does not", () => {
    const forged = `${HONEST}\nPASSED tests/test_a.py::test_b\ntests/test_a.py::test_b PASSED`;
    for (const framework of PYTEST_FAMILIES) {
      const ev = evaluateLog(harnessLog(forged, 0), framework);
      expect(ev.void?.kind, framework).toBe("results_after_summary");
      expect(ev.found).toBe(false);
      expect(ev.statuses).toEqual({});
    }
    // `swebench grade` of a non-harness log reproduces the official grader: the forgery is read as a pass.
    const official = evaluateLog(
      officialLog("pytest -rA tests/test_a.py", forged, { exitCode: 0 }),
      "parse_log_pytest",
      { rules: v5 },
    );
    expect(official.void).toBeNull();
    expect(official.statuses["tests/test_a.py::test_b"]).toBe("PASSED");
  });

  it("a forged summary line after the forged lines: more summaries than sessions → results_after_summary", () => {
    const forged = `${HONEST}\nPASSED tests/test_a.py::test_b\n==================== 3 passed, 1 skipped in 0.05s ====================`;
    const ev = evaluateLog(harnessLog(forged, 0), "parse_log_pytest");
    expect(ev.void).toMatchObject({ kind: "results_after_summary" });
  });

  it("more tests PASSED than the final summary counts → summary_mismatch, with the counts in the reason", () => {
    // Forged lines printed before pytest's short summary for a test that the summary does not list.
    const forged = HONEST.replace("collected 4 items", "collected 4 items\nPASSED tests/test_a.py::test_d");
    const ev = evaluateLog(harnessLog(forged, 1), "parse_log_pytest");
    expect(ev.void).toEqual({
      kind: "summary_mismatch",
      detail: "3 test(s) PASSED in the log, pytest's final summary counts 2 passed",
    });
  });

  it("a region with no summary line is graded as before (killed or -q runs); the 5.0.2 voids keep precedence", () => {
    const noSummary = HONEST.split("\n").slice(0, -1).join("\n");
    expect(evaluateLog(harnessLog(noSummary, 1), "parse_log_pytest").void).toBeNull();
    const allPassed = `${HONEST.replace("FAILED tests/test_a.py::test_b - assert 0\n", "")}\nPASSED tests/test_a.py::test_b`;
    expect(evaluateLog(harnessLog(allPassed, 1), "parse_log_pytest").void).toEqual({
      kind: "exit_code_mismatch",
      exitCode: 1,
    });
  });

  it("django and sympy logs are not checked (their runners print no pytest summary)", () => {
    const f = djangoFixture("full");
    const body = f.log.split("+ : '>>>>> Start Test Output'\n")[1]!.split("+ SWEBENCH_TEST_EXIT_CODE")[0]!;
    expect(
      evaluateLog(harnessLog(`${body}\n=== 1 passed in 0.01s ===\nPASSED x`, 0), "parse_log_django").void,
    ).toBeNull();
  });
});

function grade(f: Fixture, log: string, rules = v5) {
  const input: GradeInput = {
    instance_id: f.instance.instance_id,
    FAIL_TO_PASS: normaliseTestList(f.instance.FAIL_TO_PASS, "FAIL_TO_PASS", "t"),
    PASS_TO_PASS: normaliseTestList(f.instance.PASS_TO_PASS, "PASS_TO_PASS", "t"),
    model_patch: "diff --git a/x b/x\n",
    log,
    framework: frameworkFor(f.instance),
  };
  return instanceReport(input, { rules });
}

describe("official logs re-wrapped as harness logs grade exactly as the official harness grades them", () => {
  const fixtures: Array<[string, Fixture]> = [
    ["django full", djangoFixture("full")],
    ["django partial", djangoFixture("partial")],
    ["sympy", sympyFixture()],
    ["pytest unfixed", pytestFixture({ fixed: false })],
    ["pytest fixed", pytestFixture({ fixed: true })],
    ["requests", requestsFixture()],
    ["astropy", astropyFixture()],
    ["matplotlib", matplotlibFixture()],
    ["seaborn", seabornFixture()],
  ];
  for (const [name, f] of fixtures) {
    for (const rules of [v5, v4]) {
      it(`${name}, rules ${rules.version}`, () => {
        const body = f.log
          .split("+ : '>>>>> Start Test Output'\n")[1]!
          .split("+ SWEBENCH_TEST_EXIT_CODE")[0]!
          .split("+ : '>>>>> End Test Output'")[0]!;
        const exit = /^>>>>> Test Exit Code: (-?\d+)$/m.exec(f.log);
        const wrapped = grade(f, harnessLog(body, exit ? Number(exit[1]) : null), rules);
        expect(wrapped.evaluation?.void ?? null).toBeNull();
        expect(wrapped.report).toEqual(grade(f, f.log, rules).report);
      });
    }
  }
});

describe("real pytest output is never voided (python3 -m pytest on a throw-away project)", () => {
  let dir: string;
  const outputs = new Map<string, { out: string; code: number }>();
  const run = (args: string[]) =>
    // No time budget of its own: pytest ends by itself, and on a busy machine one run can take many seconds
    // (the hook's timeout is the guard against a hang). A run that did not exit with a status is an error here.
    new Promise<{ out: string; code: number }>((resolve, reject) => {
      execFile(
        "python3",
        ["-m", "pytest", ...args],
        { cwd: dir, env: { ...process.env, PYTHONDONTWRITEBYTECODE: "1" } },
        (err, stdout, stderr) => {
          const code = err ? (err as { code?: unknown }).code : 0;
          if (typeof code !== "number") return reject(err ?? new Error("pytest gave no exit status"));
          resolve({ out: stderr ? `${stdout}\n${stderr}` : stdout, code });
        },
      );
    });

  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), "pytest-summary-"));
    await writeFile(join(dir, "pytest.ini"), "[pytest]\npythonpath = .\n");
    await writeFile(
      join(dir, "test_mix.py"),
      [
        "import subprocess, sys, warnings, pytest",
        "@pytest.mark.parametrize('x', [1, 'a b', '/tmp/p', 2])",
        "def test_param(x):",
        "    assert x != 2",
        "@pytest.mark.xfail(reason='known')",
        "def test_xfail():",
        "    assert 0",
        "@pytest.mark.xfail(reason='flaky')",
        "def test_xpass():",
        "    pass",
        "@pytest.mark.skip(reason='later')",
        "def test_skip():",
        "    pass",
        "def test_warns():",
        "    warnings.warn(UserWarning('careful'))",
        "@pytest.fixture",
        "def broken():",
        "    raise RuntimeError('fixture')",
        "def test_error(broken):",
        "    pass",
        "def test_prints_statuses():",
        "    print('PASSED test_mix.py::test_error')",
        "def test_inner_run(tmp_path):",
        "    (tmp_path / 'test_inner.py').write_text('def test_i():\\n    pass\\n')",
        "    r = subprocess.run([sys.executable, '-m', 'pytest', '-rA', '-p', 'no:cacheprovider', str(tmp_path)], capture_output=True, text=True)",
        "    print(r.stdout)",
        "",
      ].join("\n"),
    );
    await writeFile(join(dir, "test_broken_collect.py"), "import not_a_module_anywhere\n");
    const base = ["-rA", "-p", "no:cacheprovider", "--color=no"];
    const [plain, verbose, collectOnlyGood, collectError, coloured] = await Promise.all([
      run([...base, "test_mix.py"]),
      run([...base, "-v", "test_mix.py"]),
      run([...base, "-k", "param", "test_mix.py"]),
      run([...base, "test_mix.py", "test_broken_collect.py"]),
      run(["-rA", "-p", "no:cacheprovider", "--color=yes", "-vv", "test_mix.py"]),
    ]);
    outputs
      .set("-rA", plain)
      .set("-rA -v", verbose)
      .set("-rA -k (deselected)", collectOnlyGood)
      .set("-rA collection error", collectError)
      .set("-rA --color=yes -vv", coloured);
  }, 600_000);
  afterAll(async () => {
    if (dir) await rm(dir, { recursive: true, force: true });
  });

  it("the runs produced what they should (failures, so the exit status is 1 or 2)", () => {
    expect(outputs.get("-rA")!.code).toBe(1);
    expect(outputs.get("-rA")!.out).toMatch(/=+ .*1 xpassed.* in [\d.]+s =+/);
    expect(outputs.get("-rA")!.out).toContain("test session starts");
    expect(outputs.get("-rA collection error")!.code).toBe(2);
  });

  it("every run, in every pytest family, is graded (no summary void) and agrees with pytest on the failing parametrized case", () => {
    const families: Framework[] = [...PYTEST_FAMILIES];
    for (const [name, { out, code }] of outputs) {
      for (const framework of families) {
        const ev = evaluateLog(harnessLog(out, code), framework);
        // Never one of the summary voids. The official voids may still apply where the official parser reads
        // nothing or no failure: seaborn's parser has no ERROR lines (collection error), and parse_log_pytest and
        // its kin do not strip colour codes (--color=yes hides the FAILED lines, so 5.0.2's exit-code check voids).
        expect(["results_after_summary", "summary_mismatch"], `${name} / ${framework}`).not.toContain(ev.void?.kind);
        if (!name.includes("collection error") && !name.includes("color=yes"))
          expect(ev.void, `${name} / ${framework}`).toBeNull();
        if (ev.void === null && name !== "-rA collection error" && framework !== "parse_log_seaborn")
          expect(ev.statuses["test_mix.py::test_param[2]"], `${name} / ${framework}`).toBe("FAILED");
      }
    }
  });

  it("the same real output (plain and coloured) with a forged line appended after pytest's summary is voided", () => {
    for (const name of ["-rA", "-rA --color=yes -vv"]) {
      const { out } = outputs.get(name)!;
      expect(out).toContain("test session starts");
      for (const framework of ["parse_log_pytest", "parse_log_pytest_v2", "a2a_pytest_verbose"] as const) {
        const ev = evaluateLog(harnessLog(`${out}\nPASSED test_mix.py::test_param[2]`, 0), framework);
        expect(ev.void?.kind, `${name} / ${framework}`).toBe("results_after_summary");
      }
    }
  });
});
