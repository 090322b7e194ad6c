/**
 * Request paths (`dataset`, `predictions`, ...) must resolve inside directories
 * the operator allows; a request cannot make the runner read arbitrary files.
 */
import { realpathSync } from "node:fs";
import { delimiter, isAbsolute, relative, resolve, sep } from "node:path";
import { defaultScenarioDir, packageRoot } from "../util/package-root.js";

/** Config keys that hold filesystem paths. */
export const PATH_KEYS = [
  "dataset",
  "predictions",
  "repos_dir",
  "sparc_config",
  "corpus_root",
  "package_ids_file",
] as const;

/** The datasets directory: env A2A_BENCH_DATASETS, default `../shared/datasets` from the package root. */
export function datasetsDir(env: NodeJS.ProcessEnv): string {
  return resolve(env["A2A_BENCH_DATASETS"] ?? resolve(packageRoot, "..", "shared", "datasets"));
}

/**
 * Allowed roots: env GREEN_ALLOWED_ROOTS (path-list, `:`-separated) or the
 * defaults: the package's scenario_smi/, the datasets dir, the current dir.
 */
export function allowedRoots(env: NodeJS.ProcessEnv, cwd = process.cwd()): string[] {
  const configured = env["GREEN_ALLOWED_ROOTS"];
  if (configured)
    return configured
      .split(delimiter)
      .filter(Boolean)
      .map((p) => resolve(cwd, p));
  return [defaultScenarioDir, datasetsDir(env), cwd];
}

/** Real path when it exists (symlinks resolved), else the lexical resolution. */
function real(p: string): string {
  try {
    return realpathSync(p);
  } catch {
    return p;
  }
}

function inside(path: string, root: string): boolean {
  const rel = relative(real(root), path);
  return rel === "" || (!rel.startsWith(`..${sep}`) && rel !== ".." && !isAbsolute(rel));
}

/** Resolve `value` (relative to `cwd`) and check it lies in one of `roots`; returns the absolute path or null. */
export function resolveAllowedPath(value: string, roots: readonly string[], cwd = process.cwd()): string | null {
  const abs = real(resolve(cwd, value));
  return roots.some((r) => inside(abs, r)) ? abs : null;
}

/** `dataset` may be a name (`sample`, `humaneval-full`) rather than a path. */
export function isDatasetName(value: string): boolean {
  return /^[A-Za-z0-9][A-Za-z0-9_-]*$/.test(value);
}
