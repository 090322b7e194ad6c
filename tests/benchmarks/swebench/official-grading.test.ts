import { describe, expect, it } from "vitest";
import {
  evaluateLog,
  instanceReport,
  testsStatus,
  resolutionStatus,
  type GradeInput,
} from "../../../src/benchmarks/swebench/grading.js";
import { LOG_PARSERS, frameworkByName } from "../../../src/benchmarks/swebench/log-parsers.js";
import { ruleSet } from "../../../src/benchmarks/swebench/rules.js";
import { frameworkFor } from "../../../src/benchmarks/swebench/test-spec.js";
import { normaliseTestList } from "../../../src/benchmarks/swebench/instance.js";
import { assembleHarnessLog, newNonce } from "../../../src/benchmarks/swebench/markers.js";
import { checkAgainst } from "../../../src/util/schema.js";
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

function grade(f: Fixture, rules = v5, patch: string | null = "diff --git a/x b/x\n", log = f.log) {
  const input: GradeInput = {
    instance_id: f.instance.instance_id,
    FAIL_TO_PASS: normaliseTestList(f.instance.FAIL_TO_PASS, "FAIL_TO_PASS", "t"),
    PASS_TO_PASS: normaliseTestList(f.instance.PASS_TO_PASS, "PASS_TO_PASS", "t"),
    model_patch: patch,
    log,
    framework: frameworkFor(f.instance),
  };
  return instanceReport(input, { rules });
}

describe("parsers per repository family, on official-shaped logs", () => {
  it("django: ok / FAIL / ERROR / skipped, FAIL:/ERROR: headers, and a result line broken by output", () => {
    const f = djangoFixture("partial");
    const ev = evaluateLog(f.log, "parse_log_django");
    const DJ = "forms_tests.tests.test_forms.FormsTestCase";
    expect(ev.statuses).toMatchObject({
      "test_attribute_class (forms_tests.tests.test_forms.RendererTests)": "PASSED",
      [`test_boundfield_id_for_label (${DJ})`]: "PASSED",
      [`test_boundfield_css_classes (${DJ})`]: "ERROR",
      [`test_jinja_only (${DJ})`]: "SKIPPED",
      [`test_multiline_print (${DJ})`]: "PASSED",
      // The "ERROR: <name> (<class>)" header yields the bare name, as the official parser does.
      test_boundfield_css_classes: "ERROR",
    });
    // Migration lines ("Applying admin.0001_initial... OK") are not tests.
    expect(Object.keys(ev.statuses).some((k) => k.includes("Applying"))).toBe(false);
  });

  it("django: the known interruptions (migration output on a result line, split result lines, --version)", () => {
    const log = [
      "Applying sites.0002_alter_domain_unique...test_no_migrations (migrations.test_commands.MigrateTests) ... ok",
      "test_runner_deprecation (test_runner.tests.Tests) ... System check identified no issues (0 silenced).",
      "ok",
      "test_admin_page (admin_views.tests.AdminViewTests) ... Internal Server Error: /admin/page/",
      "ok",
      "test_version (admin_scripts.tests.CommandTypes)",
      "--version is equivalent to version ... ok",
    ].join("\n");
    expect(LOG_PARSERS.parse_log_django(log)).toMatchObject({
      "test_no_migrations (migrations.test_commands.MigrateTests)": "PASSED",
      "test_runner_deprecation (test_runner.tests.Tests)": "PASSED",
      "test_admin_page (admin_views.tests.AdminViewTests)": "PASSED",
      "--version is equivalent to version": "PASSED",
    });
  });

  it("django: FULL, PARTIAL and NO, in the official report.json shape", () => {
    const full = grade(djangoFixture("full"));
    const id = "django__django-11111";
    expect(full.resolution).toBe("RESOLVED_FULL");
    expect(full.report[id]).toMatchObject({
      patch_is_None: false,
      patch_exists: true,
      patch_successfully_applied: true,
      resolved: true,
      infra_failure: false,
    });
    const partial = grade(djangoFixture("partial"));
    expect(partial.resolution).toBe("RESOLVED_PARTIAL");
    expect(partial.report[id]!.resolved).toBe(false);
    expect(partial.report[id]!.tests_status!.FAIL_TO_PASS.failure).toEqual([
      "test_boundfield_css_classes (forms_tests.tests.test_forms.FormsTestCase)",
    ]);
    const no = grade(djangoFixture("no"));
    expect(no.resolution).toBe("RESOLVED_NO");
    for (const g of [full, partial, no]) expect(checkAgainst("swebench_report.schema.json", g.report)).toEqual([]);
  });

  it("sympy: `name ok|F|E` lines and `____ path.py:name ____` headers; a line ending in [FAIL] records nothing", () => {
    const f = sympyFixture();
    const ev = evaluateLog(f.log, "parse_log_sympy");
    expect(ev.statuses).toEqual({
      test_printmethod: "PASSED",
      test_latex_basic: "FAILED",
      test_latex_functions: "ERROR",
      "sympy/printing/tests/test_latex.py:test_latex_basic": "FAILED",
      "sympy/printing/tests/test_latex.py:test_latex_functions": "FAILED",
    });
    const g = grade(f);
    expect(g.resolution).toBe("RESOLVED_NO");
    expect(g.report[f.instance.instance_id]!.tests_status!.PASS_TO_PASS).toEqual({
      success: ["test_printmethod"],
      failure: ["test_latex_builtins"],
    });
  });

  it("pytest -rA: summary lines; the `SKIPPED [1] file:line` count is not a test under 5.0.2 but is under 4.1.0", () => {
    const f = pytestFixture({ fixed: false });
    const v5map = evaluateLog(f.log, "parse_log_pytest", { rules: v5 }).statuses;
    expect(v5map).toEqual({
      "testing/test_mark.py::TestMark::test_pytest_exists_in_namespace_all[py.test-mark]": "PASSED",
      "testing/test_mark.py::test_marked_class_run_twice": "PASSED",
      "testing/test_mark.py::test_mark_option[xyz-expected_passed0]": "FAILED",
      "testing/test_mark.py::test_ini_markers": "PASSED",
    });
    expect(evaluateLog(f.log, "parse_log_pytest", { rules: v4 }).statuses["[1]"]).toBe("SKIPPED");
    expect(grade(f).resolution).toBe("RESOLVED_NO");
    expect(grade(pytestFixture({ fixed: true })).resolution).toBe("RESOLVED_FULL");
  });

  it("pytest_options (requests): an absolute-path parameter is cut to its last component", () => {
    const f = requestsFixture();
    expect(evaluateLog(f.log, "parse_log_pytest_options").statuses).toHaveProperty(
      ["tests/test_requests.py::test_data_argument_accepts_tuples[/data.bin]"],
      "PASSED",
    );
    expect(grade(f).resolution).toBe("RESOLVED_FULL");
  });

  it("pytest_v2 (astropy -vv): progress lines and summary; FAILED cut at ` - `; 4.1.0 keeps the second word only", () => {
    const f = astropyFixture();
    const m5 = evaluateLog(f.log, "parse_log_pytest_v2", { rules: v5 }).statuses;
    expect(m5).toMatchObject({
      "astropy/units/tests/test_quantity.py::test_quantity_creation": "PASSED",
      "astropy/units/tests/test_quantity.py::test_quantity_ufunc[sqrt]": "PASSED",
      "astropy/units/tests/test_quantity.py::test_quantity_repr": "FAILED",
      "astropy/units/tests/test_quantity.py::test_known_bug": "XFAIL",
      // 5.0.2 keeps the rest of an XFAIL summary line as the id (official quirk).
      "astropy/units/tests/test_quantity.py::test_known_bug - reason: not fixed upstream": "XFAIL",
    });
    const m4 = evaluateLog(f.log, "parse_log_pytest_v2", { rules: v4 }).statuses;
    expect(m4["astropy/units/tests/test_quantity.py::test_known_bug"]).toBe("XFAIL");
    expect(Object.keys(m4).some((k) => k.includes(" - "))).toBe(false);
    expect(grade(f).resolution).toBe("RESOLVED_NO");
  });

  it("matplotlib: MouseButton.LEFT/RIGHT become 1/3 in ids", () => {
    const f = matplotlibFixture();
    expect(Object.keys(evaluateLog(f.log, "parse_log_matplotlib").statuses)).toContain(
      "lib/matplotlib/tests/test_widgets.py::test_span_selector_drag[1-True]",
    );
    expect(grade(f).resolution).toBe("RESOLVED_FULL");
  });

  it("seaborn: PASSED / FAILED summary lines", () => {
    const f = seabornFixture();
    expect(evaluateLog(f.log, "parse_log_seaborn").statuses).toEqual({
      "tests/test_core.py::TestHueMapping::test_init_from_map": "PASSED",
      "tests/test_core.py::TestHueMapping::test_plotter_default_init": "PASSED",
      "tests/test_core.py::TestHueMapping::test_hue_map_null": "FAILED",
    });
    expect(grade(f).resolution).toBe("RESOLVED_NO");
  });

  it("every official parser name, aliases included, resolves to a family", () => {
    for (const name of [
      "parse_log_flask",
      "parse_log_xarray",
      "parse_log_pylint",
      "parse_log_sphinx",
      "parse_log_scikit",
      "parse_log_django",
    ]) {
      expect(frameworkByName(name)).toBeDefined();
    }
    expect(frameworkByName("parse_log_gotest")).toBeUndefined();
    expect(Object.keys(LOG_PARSERS)).toHaveLength(8);
  });
});

describe("log evaluation (get_logs_eval)", () => {
  const f = pytestFixture({ fixed: true });
  it("reads the `+ : '>>>>> ...'` set -x markers and the plain ones alike", () => {
    const plain = officialLog("pytest -rA testing/test_mark.py", "PASSED testing/test_mark.py::test_ini_markers", {
      plainMarkers: true,
    });
    expect(evaluateLog(plain, "parse_log_pytest").statuses).toEqual({
      "testing/test_mark.py::test_ini_markers": "PASSED",
    });
    expect(evaluateLog(f.log, "parse_log_pytest").found).toBe(true);
  });

  it.each([">>>>> Patch Apply Failed", ">>>>> Reset Failed", ">>>>> Tests Errored", ">>>>> Tests Timed Out"])(
    "the marker %s anywhere voids the run",
    (marker) => {
      const g = grade(f, v5, "diff", `${marker}\n${f.log}`);
      expect(g.evaluation!.void).toEqual({ kind: "voiding_marker", marker });
      expect(g.report["pytest-dev__pytest-33333"]).toEqual({
        patch_is_None: false,
        patch_exists: true,
        patch_successfully_applied: false,
        resolved: false,
        infra_failure: false,
      });
    },
  );

  it("a missing start or end marker voids the run", () => {
    expect(evaluateLog(f.log.replace("+ : '>>>>> End Test Output'", ""), "parse_log_pytest").void).toEqual({
      kind: "missing_markers",
    });
  });

  it("results only outside the region are read from the whole log (official fallback)", () => {
    const log = officialLog("pytest -rA t.py", "collected 1 item") + "PASSED t.py::test_a\n";
    const ev = evaluateLog(log, "parse_log_pytest");
    expect(ev).toMatchObject({ found: true, wholeLogFallback: true, statuses: { "t.py::test_a": "PASSED" } });
  });

  it("5.0.2: a non-zero exit code with no failure in the map voids the run; 4.1.0 grades it", () => {
    const spoofed = pytestFixture({ fixed: true, exitCode: 1 });
    expect(grade(spoofed, v5).evaluation!.void).toEqual({ kind: "exit_code_mismatch", exitCode: 1 });
    expect(grade(spoofed, v4).resolution).toBe("RESOLVED_FULL");
  });

  it("5.0.2: no result and no sign of a run voids it; 4.1.0 grades an empty map (every test missing)", () => {
    const empty = officialLog(
      "pytest -rA t.py",
      "collected 0 items\n\n============================ no tests ran in 0.01s =============================",
      { exitCode: 5 },
    );
    expect(evaluateLog(empty, "parse_log_pytest", { rules: v5 }).void).toEqual({ kind: "no_suite_evidence" });
    expect(evaluateLog(empty, "parse_log_pytest", { rules: v4 })).toMatchObject({ found: true, statuses: {} });
    // The official parser reads an "ERROR: ..." usage line as test "file" with status "ERROR:", which is
    // neither a pass nor a failure; 5.0.2's exit-code check then voids the run.
    const usage = officialLog("pytest -rA t.py", "ERROR: file or directory not found: t.py", { exitCode: 4 });
    expect(evaluateLog(usage, "parse_log_pytest", { rules: v4 })).toMatchObject({
      found: true,
      statuses: { file: "ERROR:" },
    });
    expect(evaluateLog(usage, "parse_log_pytest", { rules: v5 }).void).toEqual({
      kind: "exit_code_mismatch",
      exitCode: 4,
    });
  });

  it("a null patch stops the report early with patch_is_None", () => {
    expect(grade(f, v5, null).report).toEqual({
      "pytest-dev__pytest-33333": {
        patch_is_None: true,
        patch_exists: false,
        patch_successfully_applied: false,
        resolved: false,
        infra_failure: false,
      },
    });
    expect(grade(f, v4, null).report).toEqual({
      "pytest-dev__pytest-33333": {
        patch_is_None: true,
        patch_exists: false,
        patch_successfully_applied: false,
        resolved: false,
      },
    });
  });

  it("5.0.2 classifies a void log's environment failure in the advisory infra_failure field", () => {
    const oom = officialLog("pytest -rA t.py", "Killed", { exitCode: 137 });
    expect(grade(f, v5, "d", oom).report["pytest-dev__pytest-33333"]).toMatchObject({
      resolved: false,
      infra_failure: true,
      infra_failure_reason: "out_of_memory",
    });
  });
});

describe("per-test rules (get_eval_tests_report)", () => {
  it("5.0.2: SKIPPED fails F2P and maintains P2P; 4.1.0: SKIPPED lands in neither list (an all-skipped F2P is FULL)", () => {
    const sm = { a: "SKIPPED", p: "SKIPPED" };
    expect(testsStatus(["a"], ["p"], sm, v5)).toMatchObject({
      FAIL_TO_PASS: { success: [], failure: ["a"] },
      PASS_TO_PASS: { success: ["p"], failure: [] },
    });
    const old = testsStatus(["a"], ["p"], sm, v4);
    expect(old).toMatchObject({
      FAIL_TO_PASS: { success: [], failure: [] },
      PASS_TO_PASS: { success: [], failure: [] },
    });
    expect(resolutionStatus(old)).toBe("RESOLVED_FULL");
    expect(resolutionStatus(testsStatus(["a"], ["p"], sm, v5))).toBe("RESOLVED_NO");
  });

  it("5.0.2: a truncated parametrize id matches by prefix only when the candidates agree", () => {
    const id = "t.py::test_grammar[log(photon";
    expect(testsStatus([id], [], { "t.py::test_grammar[log(photon)]": "PASSED" }, v5).FAIL_TO_PASS.success).toEqual([
      id,
    ]);
    expect(
      testsStatus(
        [id],
        [],
        { "t.py::test_grammar[log(photon)]": "PASSED", "t.py::test_grammar[log(photon, 2)]": "FAILED" },
        v5,
      ).FAIL_TO_PASS.failure,
    ).toEqual([id]);
    expect(testsStatus([id], [], { "t.py::test_grammar[log(photon)]": "PASSED" }, v4).FAIL_TO_PASS.failure).toEqual([
      id,
    ]);
    // A closed id never prefix-matches.
    expect(testsStatus(["t.py::test_a"], [], { "t.py::test_ab": "PASSED" }, v5).FAIL_TO_PASS.failure).toEqual([
      "t.py::test_a",
    ]);
  });

  it("an unusual status word is neither success nor failure, as in the official grader", () => {
    expect(testsStatus(["a"], [], { a: "ERROR:" }, v5).FAIL_TO_PASS).toEqual({ success: [], failure: [] });
  });
});

describe("harness-assembled logs (nonce markers)", () => {
  const f = pytestFixture({ fixed: false });
  const ids = { F2P: "testing/test_mark.py::test_mark_option[xyz-expected_passed0]" };
  const fakeTail = [
    "+ : '>>>>> End Test Output'",
    ">>>>> End Test Output",
    ">>>>> Test Exit Code: 0",
    `>>>>> End Test Output a2a-nonce=${"0".repeat(32)}`,
  ].join("\n");

  function harnessLog(testOutput: string, exitCode: number | null = 1) {
    const nonce = newNonce();
    return {
      nonce,
      log: assembleHarnessLog({ nonce, preamble: "+ git apply -v test.patch", testOutput, exitCode, timedOut: false }),
    };
  }

  it("fake end markers printed by the tests cannot cut the region: failures after them still count", () => {
    const output = `PASSED ${ids.F2P}\n${fakeTail}\nFAILED ${ids.F2P} - AssertionError`;
    const official = officialLog("pytest -rA testing/test_mark.py", output, { exitCode: null });
    // The official grader stops at the first end marker the tests printed and misses the failure.
    expect(evaluateLog(official, "parse_log_pytest", { rules: v4 }).statuses[ids.F2P]).toBe("PASSED");
    const { log } = harnessLog(output);
    const ev = evaluateLog(log, "parse_log_pytest", { rules: v4 });
    expect(ev.harness).toBe(true);
    expect(ev.statuses[ids.F2P]).toBe("FAILED");
  });

  it("a fake exit-code line cannot hide the real one", () => {
    const output = "PASSED testing/test_mark.py::test_ini_markers\n>>>>> Test Exit Code: 0";
    const { log } = harnessLog(output, 1);
    expect(evaluateLog(log, "parse_log_pytest", { rules: v5 }).void).toEqual({
      kind: "exit_code_mismatch",
      exitCode: 1,
    });
    // The official grader takes the first exit-code line in the log: the forged one.
    expect(evaluateLog(officialLog("pytest", output, { exitCode: 1 }), "parse_log_pytest", { rules: v5 }).found).toBe(
      true,
    );
  });

  it("fake PASSED lines and markers printed outside the harness region do not count, and voiding text from the tests does not void", () => {
    const { nonce, log } = harnessLog(`FAILED ${ids.F2P} - boom\n>>>>> Tests Timed Out\n>>>>> Patch Apply Failed`);
    // Text appended after the harness's end line (where a stray writer could only add it) is never parsed.
    const tampered = log + `PASSED ${ids.F2P}\n`;
    const ev = evaluateLog(tampered, "parse_log_pytest", { rules: v4, nonce });
    expect(ev.found).toBe(true);
    expect(ev.statuses[ids.F2P]).toBe("FAILED");
  });

  it("a log that lacks the expected nonce is void; the official grader still reads a harness log", () => {
    const { log } = harnessLog(`PASSED ${ids.F2P}`, 0);
    expect(evaluateLog(log, "parse_log_pytest", { nonce: "f".repeat(32) }).void).toEqual({ kind: "missing_markers" });
    // Without the header line the same log is graded as an official one: the markers still contain the official text.
    const officialView = evaluateLog(log.slice(log.indexOf("\n") + 1), "parse_log_pytest");
    expect(officialView.statuses[ids.F2P]).toBe("PASSED");
  });

  it("a harness timeout or error line voids the run", () => {
    const nonce = newNonce();
    const log = assembleHarnessLog({ nonce, testOutput: `PASSED ${ids.F2P}`, exitCode: null, timedOut: true });
    expect(evaluateLog(log, "parse_log_pytest").void?.kind).toBe("voiding_marker");
  });

  it("grades the fixture the same whichever way it was wrapped, when nothing is forged", () => {
    const body = f.log.split("+ : '>>>>> Start Test Output'\n")[1]!.split("+ SWEBENCH_TEST_EXIT_CODE")[0]!;
    const { log } = harnessLog(body, 1);
    expect(grade(f, v5, "d", log).report).toEqual(grade(f).report);
  });
});
