/**
 * What the patch text alone says about the test run: the repository paths a
 * patch names, and each repository's own test runner files. Whether a patch
 * changes how the tests run is decided by effect (test-inventory.ts), not by
 * these names; they only add edits that no tree inventory shows (to files
 * test_patch resets, and to a runner the inventory cannot parse).
 */
import { patchPaths } from "./patch-paths.js";

/** Test-runner files of repositories whose runner lives in the repository itself. */
export const RUNNER_FILES: Readonly<Record<string, readonly string[]>> = {
  "django/django": ["tests/runtests.py", "tests/test_sqlite.py"],
  "sympy/sympy": ["bin/test"],
};

/** The repository-relative paths a patch names (headers only; `a/`/`b/` prefixes dropped, `/dev/null` left out). */
export function patchTargets(patch: string): string[] {
  const out: string[] = [];
  for (const p of patchPaths(patch)) {
    if (p === "/dev/null") continue;
    const rel = p.replace(/^[ab]\//, "");
    if (!out.includes(rel)) out.push(rel);
  }
  return out;
}
