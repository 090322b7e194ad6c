/**
 * Does a model patch touch what decides how the tests run? A patch that adds
 * a `conftest.py`, edits pytest's configuration or the test runner, or edits
 * the very test files can change verdicts without fixing anything. Such
 * paths are reported on the result row (`touches_test_config`); with
 * `strict_tests` the instance then counts as unresolved.
 *
 * Flagged by name: `conftest.py` at any depth; `pytest.ini`, `.pytest.ini`,
 * `tox.ini`, `noxfile.py`, `sitecustomize.py`, `usercustomize.py` at any
 * depth; the files test_patch touches; the repository's test runner
 * (django's `tests/runtests.py` and its `tests/test_sqlite.py` settings,
 * sympy's `bin/test`); a module at the repository's root named after the
 * runner (`pytest.py`, `_pytest/`, `pluggy`, `py`, `iniconfig`, `tox`). Flagged by content: `setup.cfg` when its `[tool:pytest]`
 * or `[pytest]` section changes, `pyproject.toml` when any `[tool.pytest...]`
 * table changes.
 */
import { patchPaths } from "./patch-paths.js";

const CONFIG_BASENAMES: ReadonlySet<string> = new Set([
  "conftest.py",
  "pytest.ini",
  ".pytest.ini",
  "tox.ini",
  "noxfile.py",
  "sitecustomize.py",
  "usercustomize.py",
]);
const SECTION_FILES: ReadonlySet<string> = new Set(["setup.cfg", "pyproject.toml"]);
/**
 * Top-level modules of the test runner. The local command is `python3 -m pytest`, which puts the
 * working directory first on sys.path: a `pytest.py` or `_pytest/` at the repository's root would
 * replace the runner itself.
 */
const RUNNER_MODULES: ReadonlySet<string> = new Set(["pytest", "_pytest", "pluggy", "py", "iniconfig", "tox"]);

/** The module a repository-root path would provide (`pytest.py` → `pytest`, `_pytest/x.py` → `_pytest`), or null. */
function rootModule(path: string): string | null {
  const first = path.split("/")[0]!;
  if (path.includes("/")) return first;
  return first.endsWith(".py") ? first.slice(0, -3) : null;
}

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

function basename(path: string): string {
  return path.slice(path.lastIndexOf("/") + 1);
}

export interface TestConfigScan {
  /** Paths flagged by name. */
  flagged: string[];
  /** `setup.cfg` / `pyproject.toml` paths the patch touches: flagged only if their pytest sections change. */
  sectionCandidates: string[];
}

/** Classify a patch's paths (pure; see the module note for the rules). */
export function scanTestConfig(patch: string, testFiles: readonly string[], repo: string): TestConfigScan {
  const runner = RUNNER_FILES[repo] ?? [];
  const scan: TestConfigScan = { flagged: [], sectionCandidates: [] };
  for (const path of patchTargets(patch)) {
    const name = basename(path);
    const mod = rootModule(path);
    if (
      CONFIG_BASENAMES.has(name) ||
      testFiles.includes(path) ||
      runner.includes(path) ||
      (mod !== null && RUNNER_MODULES.has(mod))
    )
      scan.flagged.push(path);
    else if (SECTION_FILES.has(name)) scan.sectionCandidates.push(path);
  }
  return scan;
}

/**
 * The pytest-relevant sections of a config file's text, concatenated:
 * `[tool:pytest]`/`[pytest]` of an INI file, every `[tool.pytest...]` table
 * (and `[[tool.pytest...]]`) of a TOML file. A section runs to the next
 * header line.
 */
export function pytestSections(path: string, text: string): string {
  const toml = path.endsWith(".toml");
  const isHeader = (l: string): boolean => /^\s*\[/.test(l);
  const wanted = (l: string): boolean =>
    toml ? /^\s*\[\[?\s*tool\.pytest\b/.test(l) : /^\s*\[\s*(tool:pytest|pytest)\s*\]/.test(l);
  const out: string[] = [];
  let inside = false;
  for (const line of text.split(/\r?\n/)) {
    if (isHeader(line)) inside = wanted(line);
    if (inside) out.push(line.trimEnd());
  }
  return out.join("\n");
}

/** True if the pytest sections differ between the two versions of `path` (null = file absent). */
export function pytestSectionsDiffer(path: string, before: string | null, after: string | null): boolean {
  return pytestSections(path, before ?? "") !== pytestSections(path, after ?? "");
}
