/**
 * How an instance's tests are run and parsed, keyed by repository (SWE-bench's
 * `MAP_REPO_VERSION_TO_SPECS` reduced to what we need: a test command and a log
 * framework). Unknown repositories default to pytest. Like SWE-bench, only the
 * test files touched by `test_patch` are run.
 */
import type { Framework } from "./log-parsers.js";
import type { SwebenchInstance } from "./instance.js";

export interface TestSpec {
  framework: Framework;
  /** Shell command (bash) run in the worktree; `files` are the test files of test_patch. */
  command(files: string[]): string;
  /** Environment of the test run, added to the sandbox's base environment. */
  env: Readonly<Record<string, string>>;
}

function shellQuote(s: string): string {
  return `'${s.replace(/'/g, `'\\''`)}'`;
}

/**
 * Environment of every test run: no bytecode written into the worktree, a
 * fixed hash seed (stable set/dict order across runs).
 */
export const TEST_RUN_ENV: Readonly<Record<string, string>> = Object.freeze({ PYTHONDONTWRITEBYTECODE: "1", PYTHONHASHSEED: "0" });

/**
 * pytest with the per-test report SWE-bench parses (`-rA`), plus `-v` for skip
 * ids; no cache writes. Plugins installed in the sandbox's Python are NOT
 * auto-loaded (`PYTEST_DISABLE_PLUGIN_AUTOLOAD`): they belong to the host, not
 * to the repository under test, and loading them dominated each run (measured
 * with hypothesis + pytest-benchmark installed: 0.93 s per run with autoload,
 * 0.26 s without; python + pytest start-up is the rest). The repository's own conftest.py, `pytest_plugins`
 * and `-p` in its addopts still load; a repository whose tests need an
 * installed plugin names it in `plugins` (passed as `-p <name>`, which loads
 * entry-point plugins by name even with autoload off).
 */
export function pytestSpec(plugins: readonly string[] = []): TestSpec {
  const load = plugins.map((p) => `-p ${shellQuote(p)} `).join("");
  return {
    framework: "pytest",
    command: (files) => `python3 -m pytest -rA -v -p no:cacheprovider ${load}--color=no ${files.map(shellQuote).join(" ")}`,
    env: Object.freeze({ ...TEST_RUN_ENV, PYTEST_DISABLE_PLUGIN_AUTOLOAD: "1" }),
  };
}

/** The default spec: {@link pytestSpec} with no extra plugins. */
export const PYTEST_SPEC: TestSpec = pytestSpec();

/** Per-repository overrides (owner/name → spec). */
export const REPO_TEST_SPECS: Readonly<Record<string, TestSpec>> = {};

export function testSpecFor(repo: string): TestSpec {
  return REPO_TEST_SPECS[repo] ?? PYTEST_SPEC;
}

/** Paths of the files a unified diff touches (its `+++ b/...` or `diff --git` targets), in order, deduplicated. */
export function diffFiles(patch: string): string[] {
  const files: string[] = [];
  for (const line of patch.split("\n")) {
    let m = /^diff --git a\/(\S+) b\/(\S+)/.exec(line);
    const path = m ? m[2] : (m = /^\+\+\+ b\/(\S+)/.exec(line)) ? m[1] : undefined;
    if (path && !files.includes(path)) files.push(path);
  }
  return files;
}

/** The test files an instance's test_patch touches. */
export function testFilesOf(inst: SwebenchInstance): string[] {
  return diffFiles(inst.test_patch);
}
