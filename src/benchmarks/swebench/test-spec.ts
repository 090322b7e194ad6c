/**
 * How an instance's tests are run and parsed, per repository and version, as
 * the official harness's spec table has it (`MAP_REPO_VERSION_TO_SPECS` and
 * `MAP_REPO_TO_PARSER` of release 4.1.0, the last release that ships the
 * table in code; 5.x datasets carry the resulting `eval_script` and
 * `log_parser` per instance instead, and an instance's own `log_parser`
 * wins over this table).
 *
 * Test command = the version's `test_cmd` followed by the test directives:
 * the `b/` paths of the `diff --git` headers of `test_patch`, minus files with
 * a non-test extension; for django each directive loses `.py` and a leading
 * `tests/` and its slashes become dots (a module label for runtests.py).
 * sympy and every pytest repository take the paths as they are.
 *
 * Repositories the table does not know (the embedded sample set, your own)
 * run `python3 -m pytest -rA -v` and are parsed by the `-v`-aware parser.
 */
import type { SwebenchInstance } from "./instance.js";
import { frameworkByName, type Framework } from "./log-parsers.js";
import { patchPaths } from "./patch-paths.js";
import { SwebenchSpecError } from "./errors.js";

/** Official test commands (constants/python.py). */
export const TEST_PYTEST = "pytest -rA";
export const TEST_ASTROPY_PYTEST = "pytest -rA -vv -o console_output_style=classic --tb=no";
export const TEST_DJANGO = "./tests/runtests.py --verbosity 2 --settings=test_sqlite --parallel 1";
export const TEST_DJANGO_NO_PARALLEL = "./tests/runtests.py --verbosity 2";
export const TEST_SEABORN = "pytest --no-header -rA";
export const TEST_SPHINX = "tox --current-env -epy39 -v --";
export const TEST_SYMPY = "PYTHONWARNINGS='ignore::UserWarning,ignore::SyntaxWarning' bin/test -C --verbose";

/** One version's entry. */
export interface VersionSpec {
  test_cmd: string;
  /** The official `eval_commands`, run before the tests (locale set-up, exports). */
  eval_commands: readonly string[];
}

export interface RepoSpec {
  parser: Framework;
  /** Version → spec; `"*"` = the same for every version (repositories outside Lite/Verified). */
  versions: Readonly<Record<string, VersionSpec>>;
  /** Python modules the local (host-Python) execution needs importable. */
  requires: readonly string[];
}

const DJANGO_LOCALE_EXPORTS = [
  "export LANG=en_US.UTF-8",
  "export LC_ALL=en_US.UTF-8",
  "export PYTHONIOENCODING=utf8",
  "export LANGUAGE=en_US:en",
];
const DJANGO_LOCALE_GEN = [
  "sed -i '/en_US.UTF-8/s/^# //g' /etc/locale.gen && locale-gen",
  "export LANG=en_US.UTF-8",
  "export LANGUAGE=en_US:en",
  "export LC_ALL=en_US.UTF-8",
];

function versions(
  list: readonly string[],
  test_cmd: string,
  eval_commands: readonly string[] = [],
): Record<string, VersionSpec> {
  return Object.fromEntries(list.map((v) => [v, { test_cmd, eval_commands }]));
}

const PYTEST_ANY = versions(["*"], TEST_PYTEST);

/** The official table for the Python repositories (all of SWE-bench Lite and Verified, and the rest of the full set). */
export const OFFICIAL_SPECS: Readonly<Record<string, RepoSpec>> = {
  "astropy/astropy": {
    parser: "parse_log_pytest_v2",
    versions: {
      ...versions(["3.0", "3.1", "3.2", "4.1", "4.2", "4.3", "5.0", "5.1", "5.2", "v5.3"], TEST_PYTEST),
      ...versions(["0.1", "0.2", "0.3", "0.4", "1.1", "1.2", "1.3"], TEST_ASTROPY_PYTEST),
    },
    requires: ["pytest"],
  },
  "django/django": {
    parser: "parse_log_django",
    versions: {
      ...versions(["1.7", "1.8", "1.10", "1.11", "2.0", "2.1", "2.2"], TEST_DJANGO, DJANGO_LOCALE_EXPORTS),
      "1.9": { test_cmd: TEST_DJANGO_NO_PARALLEL, eval_commands: DJANGO_LOCALE_EXPORTS },
      ...versions(["1.4", "1.5", "1.6"], TEST_DJANGO),
      ...versions(["3.0", "3.1", "3.2"], TEST_DJANGO, DJANGO_LOCALE_GEN),
      ...versions(["4.0", "4.1", "4.2", "5.0", "5.1", "5.2"], TEST_DJANGO),
    },
    requires: [],
  },
  "matplotlib/matplotlib": {
    parser: "parse_log_matplotlib",
    versions: versions(
      [
        "3.5",
        "3.6",
        "3.7",
        "3.8",
        "3.9",
        "3.1",
        "3.2",
        "3.3",
        "3.4",
        "3.0",
        "2.0",
        "2.1",
        "2.2",
        "1.0",
        "1.1",
        "1.2",
        "1.3",
        "1.4",
        "1.5",
      ],
      TEST_PYTEST,
    ),
    requires: ["pytest"],
  },
  "mwaskom/seaborn": {
    parser: "parse_log_seaborn",
    versions: versions(["0.11", "0.12", "0.13", "0.14"], TEST_SEABORN),
    requires: ["pytest"],
  },
  "pallets/flask": {
    parser: "parse_log_pytest",
    versions: versions(["2.0", "2.1", "2.2", "2.3", "3.0", "3.1"], TEST_PYTEST),
    requires: ["pytest"],
  },
  "psf/requests": {
    parser: "parse_log_pytest_options",
    versions: versions(
      [
        "0.7",
        "0.8",
        "0.9",
        "0.11",
        "0.13",
        "0.14",
        "1.1",
        "1.2",
        "2.0",
        "2.2",
        "2.3",
        "2.4",
        "2.5",
        "2.7",
        "2.8",
        "2.9",
        "2.10",
        "2.11",
        "2.12",
        "2.17",
        "2.18",
        "2.19",
        "2.22",
        "2.26",
        "2.25",
        "2.27",
        "2.31",
        "3.0",
      ],
      TEST_PYTEST,
    ),
    requires: ["pytest"],
  },
  "pydata/xarray": {
    parser: "parse_log_pytest",
    versions: versions(
      ["0.12", "0.18", "0.19", "0.20", "2022.03", "2022.06", "2022.09", "2023.07", "2024.05"],
      TEST_PYTEST,
    ),
    requires: ["pytest"],
  },
  "pylint-dev/pylint": {
    parser: "parse_log_pytest_options",
    versions: versions(
      ["2.8", "2.9", "2.10", "2.11", "2.13", "2.14", "2.15", "2.16", "2.17", "3.0", "3.1", "3.2", "3.3", "4.0"],
      TEST_PYTEST,
    ),
    requires: ["pytest"],
  },
  "pytest-dev/pytest": {
    parser: "parse_log_pytest",
    versions: versions(
      [
        "4.4",
        "4.5",
        "4.6",
        "5.0",
        "5.1",
        "5.2",
        "5.3",
        "5.4",
        "6.0",
        "6.2",
        "6.3",
        "7.0",
        "7.1",
        "7.2",
        "7.4",
        "8.0",
        "8.1",
        "8.2",
        "8.3",
        "8.4",
      ],
      TEST_PYTEST,
    ),
    requires: ["pytest"],
  },
  "scikit-learn/scikit-learn": {
    parser: "parse_log_pytest_v2",
    versions: versions(["0.20", "0.21", "0.22", "1.3", "1.4", "1.5", "1.6"], TEST_PYTEST),
    requires: ["pytest"],
  },
  "sphinx-doc/sphinx": {
    parser: "parse_log_pytest_v2",
    versions: versions(
      [
        "1.5",
        "1.6",
        "1.7",
        "1.8",
        "2.0",
        "2.1",
        "2.2",
        "2.3",
        "2.4",
        "3.0",
        "3.1",
        "3.2",
        "3.3",
        "3.4",
        "3.5",
        "4.0",
        "4.1",
        "4.2",
        "4.3",
        "4.4",
        "4.5",
        "5.0",
        "5.1",
        "5.2",
        "5.3",
        "6.0",
        "6.2",
        "7.0",
        "7.1",
        "7.2",
        "7.3",
        "7.4",
        "8.0",
        "8.1",
      ],
      TEST_SPHINX,
    ),
    requires: ["tox", "tox_current_env"],
  },
  "sympy/sympy": {
    parser: "parse_log_sympy",
    versions: versions(
      ["0.7", "1.0", "1.1", "1.2", "1.4", "1.5", "1.6", "1.7", "1.8", "1.9", "1.10", "1.11", "1.12", "1.13", "1.14"],
      TEST_SYMPY,
    ),
    requires: [],
  },
  "marshmallow-code/marshmallow": { parser: "parse_log_pytest", versions: PYTEST_ANY, requires: ["pytest"] },
  "pvlib/pvlib-python": { parser: "parse_log_pytest", versions: PYTEST_ANY, requires: ["pytest"] },
  "pydicom/pydicom": { parser: "parse_log_pytest_options", versions: PYTEST_ANY, requires: ["pytest"] },
  "pylint-dev/astroid": { parser: "parse_log_pytest", versions: PYTEST_ANY, requires: ["pytest"] },
  "pyvista/pyvista": { parser: "parse_log_pytest", versions: PYTEST_ANY, requires: ["pytest"] },
  "sqlfluff/sqlfluff": { parser: "parse_log_pytest", versions: PYTEST_ANY, requires: ["pytest"] },
};

/** File endings the official harness drops from test directives (`csv` without a dot, as there). */
export const NON_TEST_EXTS: readonly string[] = [
  ".json",
  ".png",
  "csv",
  ".txt",
  ".md",
  ".jpg",
  ".jpeg",
  ".pkl",
  ".yml",
  ".yaml",
  ".toml",
];

/**
 * The official test directives of an instance: every `diff --git a/... b/<path>`
 * header of test_patch (as Python's greedy `diff --git a/.* b/(.*)` reads it),
 * minus non-test extensions; django's become module labels.
 */
export function testDirectives(inst: Pick<SwebenchInstance, "repo" | "test_patch">): string[] {
  const directives: string[] = [];
  for (const m of inst.test_patch.matchAll(/diff --git a\/[^\n]* b\/([^\n]*)/g)) {
    const path = m[1]!;
    if (!NON_TEST_EXTS.some((ext) => path.endsWith(ext))) directives.push(path);
  }
  if (inst.repo !== "django/django") return directives;
  return directives.map((d) => {
    let x = d.endsWith(".py") ? d.slice(0, -3) : d;
    if (x.startsWith("tests/")) x = x.slice("tests/".length);
    return x.replaceAll("/", ".");
  });
}

/** The parser family of an instance: its own `log_parser` (5.x datasets), else the table, else the sample parser. */
export function frameworkFor(inst: Pick<SwebenchInstance, "repo"> & { log_parser?: string }): Framework {
  if (inst.log_parser) {
    const f = frameworkByName(inst.log_parser);
    if (!f)
      throw new SwebenchSpecError(
        "E_SWEBENCH_PARSER",
        `unknown log_parser "${inst.log_parser}" (not a Python parser of the official harness)`,
      );
    return f;
  }
  return OFFICIAL_SPECS[inst.repo]?.parser ?? "a2a_pytest_verbose";
}

/** The official spec of an instance's repository and version; null for a repository outside the table. */
export function versionSpecFor(inst: Pick<SwebenchInstance, "repo" | "version" | "instance_id">): VersionSpec | null {
  const repo = OFFICIAL_SPECS[inst.repo];
  if (!repo) return null;
  const spec = repo.versions["*"] ?? (inst.version !== undefined ? repo.versions[inst.version] : undefined);
  if (!spec) {
    throw new SwebenchSpecError(
      "E_SWEBENCH_VERSION",
      `${inst.instance_id}: no official spec for ${inst.repo} version ${JSON.stringify(inst.version ?? null)} (known: ${Object.keys(repo.versions).join(", ")})`,
    );
  }
  return spec;
}

function shellQuote(s: string): string {
  return /^[\w@%+=:,./-]+$/.test(s) ? s : `'${s.replace(/'/g, `'\\''`)}'`;
}

/** The official test command of an instance (test_cmd + directives), or null outside the table. */
export function officialTestCommand(inst: SwebenchInstance): string | null {
  const spec = versionSpecFor(inst);
  return spec ? [spec.test_cmd, ...testDirectives(inst)].join(" ") : null;
}

/**
 * Files the official eval script resets to base_commit around the tests: the
 * pre-image of every file test_patch changes (new files excluded).
 */
export function modifiedFiles(testPatch: string): string[] {
  const out: string[] = [];
  const lines = testPatch.split("\n");
  for (let i = 0; i < lines.length; i++) {
    if (!lines[i]!.startsWith("--- ") || !(lines[i + 1] ?? "").startsWith("+++ ")) continue;
    const src = lines[i]!.slice(4).split("\t")[0]!.trim();
    if (src !== "/dev/null" && src.startsWith("a/") && !out.includes(src.slice(2))) out.push(src.slice(2));
  }
  return out;
}

/** Paths of the files a unified diff touches (its `+++ b/...` or `diff --git` targets), in order, deduplicated. */
export function diffFiles(patch: string): string[] {
  const files: string[] = [];
  for (const line of patch.split("\n")) {
    const git = /^diff --git a\/(\S+) b\/(\S+)/.exec(line);
    const path = git ? git[2] : /^\+\+\+ b\/(\S+)/.exec(line)?.[1];
    if (path && !files.includes(path)) files.push(path);
  }
  return files;
}

/** The test files an instance's test_patch touches (new ones included): reset to base before test_patch applies. */
export function testFilesOf(inst: Pick<SwebenchInstance, "test_patch">): string[] {
  const files = diffFiles(inst.test_patch);
  for (const p of patchPaths(inst.test_patch)) {
    const rel = p.replace(/^[ab]\//, "");
    if (rel !== "/dev/null" && rel !== "dev/null" && !files.includes(rel)) files.push(rel);
  }
  return files;
}

/**
 * The official eval.sh of an instance (release 4.1.0's shape, plus 5.x's
 * exit-code line): for containers that want to replay the official script as
 * it is. Its markers carry no nonce; prefer {@link evalPlan} with
 * markers.ts's harness log, which keeps them out of the test process.
 */
export function officialEvalScript(inst: SwebenchInstance, repoDirectory = "/testbed"): string {
  const cmd = officialTestCommand(inst);
  if (cmd === null)
    throw new SwebenchSpecError(
      "E_SWEBENCH_SPEC",
      `${inst.instance_id}: ${inst.repo} is not in the official spec table`,
    );
  const spec = versionSpecFor(inst)!;
  const reset = `git checkout ${inst.base_commit} ${modifiedFiles(inst.test_patch).join(" ")}`;
  const heredoc = "EOF_114329324912";
  return (
    [
      "#!/bin/bash",
      "set -uxo pipefail",
      `cd ${repoDirectory}`,
      ...spec.eval_commands,
      `git config --global --add safe.directory ${repoDirectory}`,
      "git status",
      "git show",
      `git -c core.fileMode=false diff ${inst.base_commit}`,
      reset,
      `git apply -v - <<'${heredoc}'\n${inst.test_patch.replace(/\n$/, "")}\n${heredoc}`,
      ": '>>>>> Start Test Output'",
      cmd,
      "SWEBENCH_TEST_EXIT_CODE=$?",
      ": '>>>>> End Test Output'",
      'echo ">>>>> Test Exit Code: $SWEBENCH_TEST_EXIT_CODE"',
      reset,
    ].join("\n") + "\n"
  );
}

/**
 * The pieces of an evaluation, for a harness that runs each itself and
 * assembles the log with markers.ts (so no marker is ever emitted by, or
 * known to, the test process):
 * 1. reset `resetFiles` to `baseCommit` and apply `testPatch` (harness side);
 * 2. run `eval_commands`, then `testCommand`, with stderr merged into stdout,
 *    in the repository directory — only this is the test process;
 * 3. assembleHarnessLog({nonce, preamble: output of 1, testOutput: output of 2, exitCode}).
 */
export interface EvalPlan {
  baseCommit: string;
  /** Files to reset before test_patch (official: pre-images only). */
  resetFiles: string[];
  /**
   * Files test_patch creates: remove them before applying it (a model patch that created one would
   * otherwise make test_patch fail to apply; the official script does not, and then runs without it).
   */
  newFiles: string[];
  testPatch: string;
  /** Official `eval_commands` (locale set-up, exports) to run before the tests. */
  evalCommands: readonly string[];
  /** Official test command with directives. */
  testCommand: string;
  framework: Framework;
}

/** {@link EvalPlan} of an instance in the official table; throws SwebenchSpecError outside it. */
export function evalPlan(inst: SwebenchInstance & { log_parser?: string }): EvalPlan {
  const spec = versionSpecFor(inst);
  if (spec === null)
    throw new SwebenchSpecError(
      "E_SWEBENCH_SPEC",
      `${inst.instance_id}: ${inst.repo} is not in the official spec table`,
    );
  return {
    baseCommit: inst.base_commit,
    resetFiles: modifiedFiles(inst.test_patch),
    newFiles: testFilesOf(inst).filter((f) => !modifiedFiles(inst.test_patch).includes(f)),
    testPatch: inst.test_patch,
    evalCommands: spec.eval_commands,
    testCommand: [spec.test_cmd, ...testDirectives(inst)].join(" "),
    framework: frameworkFor(inst),
  };
}

// ---------------------------------------------------------------------------
// Local execution (host Python inside the sandbox, no per-instance image).

export interface TestSpec {
  framework: Framework;
  /** Shell command (bash) run in the worktree. */
  command: string;
  /** Environment of the test run, added to the sandbox's base environment. */
  env: Readonly<Record<string, string>>;
  /** Python modules that must be importable (checked before any patch, see definition.ts). */
  requires: readonly string[];
}

/**
 * Environment of every local test run: no bytecode written into the worktree,
 * a fixed hash seed (stable set/dict order across runs), and no pytest plugin
 * autoloading: plugins installed in the host's Python belong to the host, not
 * to the repository under test (measured with hypothesis + pytest-benchmark
 * installed: 0.93 s per run with autoload, 0.26 s without). The repository's
 * own conftest.py, `pytest_plugins` and `-p` in its addopts still load.
 */
export const TEST_RUN_ENV: Readonly<Record<string, string>> = Object.freeze({
  PYTHONDONTWRITEBYTECODE: "1",
  PYTHONHASHSEED: "0",
  PYTEST_DISABLE_PLUGIN_AUTOLOAD: "1",
});

/** The sample-set command: pytest with the `-rA` report, `-v` for skip ids, no cache writes, no colour. */
export function pytestCommand(files: readonly string[], plugins: readonly string[] = []): string {
  const load = plugins.map((p) => `-p ${shellQuote(p)} `).join("");
  return `python3 -m pytest -rA -v -p no:cacheprovider ${load}--color=no ${files.map(shellQuote).join(" ")}`.trimEnd();
}

/** An official command made runnable by the host's python3 (`pytest` → `python3 -m pytest`, scripts through python3). */
export function localCommand(official: string): string {
  const m = /^((?:\w+=(?:'[^']*'|\S+) )*)(\S+)(.*)$/.exec(official);
  if (!m) return official;
  const [, assigns, prog, rest] = m;
  const runner =
    prog === "pytest"
      ? "python3 -m pytest"
      : prog === "tox"
        ? "python3 -m tox"
        : prog!.includes("/")
          ? `python3 ${prog}`
          : prog;
  return `${assigns}${runner}${rest}`;
}

/** Environment set by the `export K=V` lines of eval_commands (other lines need root in an image; not run locally). */
export function exportsOf(evalCommands: readonly string[]): Record<string, string> {
  const env: Record<string, string> = {};
  for (const c of evalCommands) {
    const m = /^export (\w+)=(\S+)$/.exec(c);
    if (m) env[m[1]!] = m[2]!;
  }
  return env;
}

/** The local test spec of an instance: the official command and parser when the table knows it, else pytest -rA -v. */
export function testSpecFor(inst: SwebenchInstance & { log_parser?: string }): TestSpec {
  const spec = versionSpecFor(inst);
  if (spec === null) {
    return {
      framework: frameworkFor(inst),
      command: pytestCommand(diffFiles(inst.test_patch)),
      env: TEST_RUN_ENV,
      requires: ["pytest"],
    };
  }
  return {
    framework: frameworkFor(inst),
    command: localCommand([spec.test_cmd, ...testDirectives(inst).map(shellQuote)].join(" ")),
    env: Object.freeze({ ...TEST_RUN_ENV, ...exportsOf(spec.eval_commands) }),
    requires: OFFICIAL_SPECS[inst.repo]!.requires,
  };
}
