import { describe, expect, it } from "vitest";
import {
  OFFICIAL_SPECS,
  evalPlan,
  frameworkFor,
  localCommand,
  modifiedFiles,
  officialEvalScript,
  officialTestCommand,
  testDirectives,
  testSpecFor,
  versionSpecFor,
} from "../../../src/benchmarks/swebench/test-spec.js";
import { ensureGit, ensureSandboxPython } from "../../../src/benchmarks/swebench/tools.js";
import { SwebenchInfraError, SwebenchSpecError } from "../../../src/benchmarks/swebench/errors.js";
import type { SwebenchInstance } from "../../../src/benchmarks/swebench/instance.js";
import type { ExecOutcome, Sandbox } from "../../../src/sandbox/types.js";
import type { SandboxCapability } from "../../../src/sandbox/capabilities.js";

function diffOf(paths: Array<{ path: string; isNew?: boolean }>): string {
  return paths
    .map(
      ({ path, isNew }) =>
        `diff --git a/${path} b/${path}\n${isNew ? "new file mode 100644\n--- /dev/null" : `--- a/${path}`}\n+++ b/${path}\n@@ -0,0 +1 @@\n+x\n`,
    )
    .join("");
}

function inst(repo: string, version: string | undefined, test_patch: string): SwebenchInstance {
  return {
    instance_id: `${repo.replace("/", "__")}-1`,
    repo,
    base_commit: "b".repeat(40),
    problem_statement: "p",
    test_patch,
    FAIL_TO_PASS: [],
    PASS_TO_PASS: [],
    ...(version ? { version } : {}),
  };
}

describe("official spec table", () => {
  it("covers every repository of SWE-bench Lite and Verified", () => {
    for (const repo of [
      "astropy/astropy",
      "django/django",
      "matplotlib/matplotlib",
      "mwaskom/seaborn",
      "pallets/flask",
      "psf/requests",
      "pydata/xarray",
      "pylint-dev/pylint",
      "pytest-dev/pytest",
      "scikit-learn/scikit-learn",
      "sphinx-doc/sphinx",
      "sympy/sympy",
    ]) {
      expect(OFFICIAL_SPECS[repo], repo).toBeDefined();
    }
  });

  it("django: module labels from test_patch paths (minus .py and tests/), non-test files dropped", () => {
    const i = inst(
      "django/django",
      "3.0",
      diffOf([
        { path: "tests/forms_tests/tests/test_forms.py" },
        { path: "tests/forms_tests/templates/x.txt" },
        { path: "tests/i18n/sampleproject/locale/fr/LC_MESSAGES/django.po" },
      ]),
    );
    expect(testDirectives(i)).toEqual([
      "forms_tests.tests.test_forms",
      "i18n.sampleproject.locale.fr.LC_MESSAGES.django.po",
    ]);
    expect(officialTestCommand(i)).toBe(
      "./tests/runtests.py --verbosity 2 --settings=test_sqlite --parallel 1 forms_tests.tests.test_forms i18n.sampleproject.locale.fr.LC_MESSAGES.django.po",
    );
    expect(officialTestCommand({ ...i, version: "1.9" })).toMatch(/^\.\/tests\/runtests\.py --verbosity 2 forms_tests/);
    expect(versionSpecFor(i)!.eval_commands).toContain("export LANG=en_US.UTF-8");
  });

  it("sympy: bin/test with the file paths; pytest repositories: pytest -rA with paths; sphinx: tox; astropy old versions: -vv classic", () => {
    expect(officialTestCommand(inst("sympy/sympy", "1.10", diffOf([{ path: "sympy/core/tests/test_basic.py" }])))).toBe(
      "PYTHONWARNINGS='ignore::UserWarning,ignore::SyntaxWarning' bin/test -C --verbose sympy/core/tests/test_basic.py",
    );
    expect(
      officialTestCommand(
        inst("pallets/flask", "2.3", diffOf([{ path: "tests/test_basic.py" }, { path: "tests/static/data.json" }])),
      ),
    ).toBe("pytest -rA tests/test_basic.py");
    expect(officialTestCommand(inst("sphinx-doc/sphinx", "7.1", diffOf([{ path: "tests/test_ext.py" }])))).toBe(
      "tox --current-env -epy39 -v -- tests/test_ext.py",
    );
    expect(
      officialTestCommand(inst("astropy/astropy", "1.3", diffOf([{ path: "astropy/io/tests/test_a.py" }]))),
    ).toMatch(/^pytest -rA -vv -o console_output_style=classic --tb=no /);
    expect(officialTestCommand(inst("mwaskom/seaborn", "0.12", diffOf([{ path: "tests/test_core.py" }])))).toBe(
      "pytest --no-header -rA tests/test_core.py",
    );
    expect(officialTestCommand(inst("nobody/else", "1", diffOf([{ path: "t.py" }])))).toBeNull();
  });

  it("an unknown version of a known repository is a typed spec error naming the known ones", () => {
    expect(() => versionSpecFor(inst("django/django", "9.9", ""))).toThrow(SwebenchSpecError);
    expect(() => versionSpecFor(inst("django/django", "9.9", ""))).toThrow(/known: .*4\.2/);
  });

  it("parser: the instance's own log_parser (5.x datasets) wins over the table; an unknown one is an error", () => {
    expect(frameworkFor({ repo: "django/django" })).toBe("parse_log_django");
    expect(frameworkFor({ repo: "django/django", log_parser: "parse_log_pytest" })).toBe("parse_log_pytest");
    expect(frameworkFor({ repo: "pylint-dev/pylint" })).toBe("parse_log_pytest_options");
    expect(frameworkFor({ repo: "nobody/else" })).toBe("a2a_pytest_verbose");
    expect(() => frameworkFor({ repo: "x/y", log_parser: "parse_log_cargo" })).toThrow(/unknown log_parser/);
  });

  it("the official eval script resets pre-existing test files around the tests, with the exit-code lines; the eval plan has no marker", () => {
    const i = inst(
      "pallets/flask",
      "2.3",
      diffOf([{ path: "tests/test_basic.py" }, { path: "tests/test_new.py", isNew: true }]),
    );
    expect(modifiedFiles(i.test_patch)).toEqual(["tests/test_basic.py"]);
    const script = officialEvalScript(i);
    const lines = script.split("\n");
    const start = lines.indexOf(": '>>>>> Start Test Output'");
    expect(lines[start + 1]).toBe("pytest -rA tests/test_basic.py tests/test_new.py");
    expect(lines.slice(start + 2, start + 5)).toEqual([
      "SWEBENCH_TEST_EXIT_CODE=$?",
      ": '>>>>> End Test Output'",
      'echo ">>>>> Test Exit Code: $SWEBENCH_TEST_EXIT_CODE"',
    ]);
    expect(lines.filter((l) => l === `git checkout ${i.base_commit} tests/test_basic.py`)).toHaveLength(2);
    const plan = evalPlan(i);
    expect(plan).toMatchObject({
      resetFiles: ["tests/test_basic.py"],
      newFiles: ["tests/test_new.py"],
      testCommand: "pytest -rA tests/test_basic.py tests/test_new.py",
      framework: "parse_log_pytest",
    });
    expect(JSON.stringify(plan)).not.toContain(">>>>>");
  });

  it("local execution runs the official command through the host's python3", () => {
    expect(localCommand("pytest -rA a.py")).toBe("python3 -m pytest -rA a.py");
    expect(localCommand("./tests/runtests.py --verbosity 2 x")).toBe("python3 ./tests/runtests.py --verbosity 2 x");
    expect(localCommand("PYTHONWARNINGS='ignore::UserWarning' bin/test -C a.py")).toBe(
      "PYTHONWARNINGS='ignore::UserWarning' python3 bin/test -C a.py",
    );
    const spec = testSpecFor(inst("django/django", "2.2", diffOf([{ path: "tests/a/tests.py" }])));
    expect(spec).toMatchObject({ framework: "parse_log_django", requires: [] });
    expect(spec.env).toMatchObject({ LANG: "en_US.UTF-8", PYTHONHASHSEED: "0" });
    expect(testSpecFor(inst("sphinx-doc/sphinx", "7.1", diffOf([{ path: "tests/t.py" }]))).requires).toEqual([
      "tox",
      "tox_current_env",
    ]);
  });
});

describe("required tools", () => {
  const outcome = (exitCode: number, stderrTail = ""): ExecOutcome => ({
    exitCode,
    signal: null,
    timedOut: false,
    isCanceled: false,
    outputLimitExceeded: false,
    durationMs: 1,
    stdoutTail: "",
    stderrTail,
  });
  const sandbox = (o: ExecOutcome): Sandbox & { calls: number } => {
    const s = {
      backend: "local" as const,
      isolation: "none" as const,
      warnings: [],
      capabilities: new Set<SandboxCapability>(),
      calls: 0,
      exec: async () => {
        s.calls += 1;
        return o;
      },
      execMany: async () => [],
      close: async () => {},
    };
    return s;
  };
  it("a missing python3 or module is a typed infrastructure error saying how to fix it; checked once per sandbox", async () => {
    const missing = await ensureSandboxPython(sandbox(outcome(127)), ["pytest"]).catch((e: unknown) => e);
    expect(missing).toBeInstanceOf(SwebenchInfraError);
    expect(missing).toMatchObject({ code: "E_SWEBENCH_PYTHON_MISSING" });
    const noPytest = sandbox(outcome(1, "ModuleNotFoundError: No module named 'pytest'\n"));
    const err = await ensureSandboxPython(noPytest, ["pytest"]).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(SwebenchInfraError);
    expect((err as Error).message).toMatch(/cannot import pytest .*install pytest/);
    await ensureSandboxPython(noPytest, ["pytest"]).catch(() => undefined);
    expect(noPytest.calls).toBe(1);
    const fine = sandbox(outcome(0));
    await expect(ensureSandboxPython(fine, [])).resolves.toBeUndefined();
  });

  it("a git missing from the host's PATH is E_SWEBENCH_GIT_MISSING; found again once it is back", async () => {
    const path = process.env["PATH"];
    process.env["PATH"] = "/nonexistent-a2a-bench";
    try {
      const err = await ensureGit().catch((e: unknown) => e);
      expect(err).toBeInstanceOf(SwebenchInfraError);
      expect(err).toMatchObject({ code: "E_SWEBENCH_GIT_MISSING" });
    } finally {
      process.env["PATH"] = path;
    }
    await expect(ensureGit()).resolves.toBeUndefined();
  });
});
