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
}

function shellQuote(s: string): string {
  return `'${s.replace(/'/g, `'\\''`)}'`;
}

/** pytest with the per-test report SWE-bench parses (`-rA`), plus `-v` for skip ids; no cache writes. */
export const PYTEST_SPEC: TestSpec = {
  framework: "pytest",
  command: (files) =>
    `python3 -m pytest -rA -v -p no:cacheprovider --color=no ${files.map(shellQuote).join(" ")}`,
};

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
