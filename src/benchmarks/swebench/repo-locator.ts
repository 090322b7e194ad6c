/** Where an instance's repository clone lives under `--repos-dir`. */
import { existsSync } from "node:fs";
import { join } from "node:path";
import { BenchError } from "../../util/errors.js";

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
