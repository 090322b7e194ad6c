/** Where an instance's repository clone lives under `--repos-dir`. */
import { existsSync } from "node:fs";
import { join, resolve } from "node:path";
import { BenchError } from "../../util/errors.js";
import type { RunOptions } from "../../runner/options.js";
import { ensureSampleDataset } from "./sample-dataset.js";

/** Name of the embedded instance set. */
export const SAMPLE_DATASET = "sample";

/** The directory of the run's repository clones: `--repos-dir`, or the embedded set's own. */
export async function reposDirFor(options: RunOptions): Promise<string> {
  if (options.repos_dir) return resolve(options.repos_dir);
  if (options.dataset === SAMPLE_DATASET) return (await ensureSampleDataset()).reposDir;
  throw new BenchError(
    "E_REPOS_DIR",
    "swebench: --repos-dir is required with a dataset file (one clone per repository)",
  );
}

/**
 * The clone of `owner/name`: `<reposDir>/<owner>__<name>` (SWE-bench's
 * naming) or `<reposDir>/<owner>/<name>`. Throws E_REPO_MISSING when neither
 * is a git repository.
 */
export function locateRepo(reposDir: string, repo: string): string {
  const [owner, name] = repo.split("/");
  const candidates = [join(reposDir, `${owner}__${name}`), join(reposDir, owner ?? "", name ?? "")];
  for (const c of candidates) {
    if (existsSync(join(c, ".git")) || existsSync(join(c, "HEAD"))) return c;
  }
  throw new BenchError("E_REPO_MISSING", `no clone of ${repo} in ${reposDir} (looked for ${candidates.join(", ")})`);
}
