/**
 * Materialise the embedded instance set (sample-repos.ts) as git repositories
 * plus an instance file in a cache directory, on demand. Commits use a fixed
 * identity and date, so the commit hashes are the same on every machine; the
 * `patch` and `test_patch` are `git diff`s of real commits on top of the base.
 * Built in a temp dir and renamed into place, so concurrent builders are safe.
 */
import { mkdir, mkdtemp, readFile, rename, rm, writeFile } from "node:fs/promises";
import { existsSync } from "node:fs";
import { homedir } from "node:os";
import { dirname, join } from "node:path";
import { gitOk } from "./git.js";
import { parseInstances, type SwebenchInstance } from "./instance.js";
import { SAMPLE_REPO_SPECS, type SampleRepoSpec } from "./sample-repos.js";

/** Bump when the specs change, so stale caches are not reused. */
export const SAMPLE_SET_VERSION = 1;

const FIXED_DATE = "2024-01-01T00:00:00Z";
const COMMIT_ENV = { GIT_AUTHOR_DATE: FIXED_DATE, GIT_COMMITTER_DATE: FIXED_DATE };

export interface SampleDataset {
  /** Directory holding `<owner>__<name>` clones (pass as repos_dir). */
  reposDir: string;
  /** Instance file (JSON list) in SWE-bench's format. */
  instancesPath: string;
  instances: SwebenchInstance[];
}

/** Default cache root: `$A2A_BENCH_CACHE_DIR`, else `$XDG_CACHE_HOME/a2a-bench`, else `~/.cache/a2a-bench`. */
export function defaultCacheDir(env: NodeJS.ProcessEnv = process.env): string {
  return env["A2A_BENCH_CACHE_DIR"] ?? join(env["XDG_CACHE_HOME"] ?? join(homedir(), ".cache"), "a2a-bench");
}

async function writeFiles(root: string, files: Record<string, string>): Promise<void> {
  for (const [rel, content] of Object.entries(files)) {
    const path = join(root, rel);
    await mkdir(dirname(path), { recursive: true });
    await writeFile(path, content);
  }
}

/** A diff of `files` written on top of HEAD (new files included), then reverted. */
async function diffOf(dir: string, files: Record<string, string>): Promise<string> {
  await writeFiles(dir, files);
  await gitOk(dir, ["add", "-A"]);
  const diff = await gitOk(dir, ["diff", "--cached", "--no-color", "--no-ext-diff"]);
  await gitOk(dir, ["reset", "--hard", "--quiet", "HEAD"]);
  return diff;
}

async function buildRepo(reposDir: string, spec: SampleRepoSpec): Promise<SwebenchInstance> {
  const [owner, name] = spec.repo.split("/");
  const dir = join(reposDir, `${owner}__${name}`);
  await mkdir(dir, { recursive: true });
  await gitOk(dir, ["init", "--quiet", "--initial-branch=main"]);
  await writeFiles(dir, spec.base);
  await gitOk(dir, ["add", "-A"]);
  await gitOk(dir, ["commit", "--quiet", "--no-gpg-sign", "-m", `Initial version of ${spec.repo}`], {
    env: COMMIT_ENV,
  });
  const base_commit = (await gitOk(dir, ["rev-parse", "HEAD"])).trim();
  return {
    instance_id: spec.instance_id,
    repo: spec.repo,
    base_commit,
    problem_statement: spec.problem_statement,
    hints_text: "",
    patch: await diffOf(dir, spec.fix),
    test_patch: await diffOf(dir, spec.tests),
    FAIL_TO_PASS: spec.FAIL_TO_PASS,
    PASS_TO_PASS: spec.PASS_TO_PASS,
    version: "0.1",
    environment_setup_commit: base_commit,
  };
}

/**
 * The sample set under `cacheDir` (default {@link defaultCacheDir}), built if
 * absent. The instance file is written last, so its presence marks a complete build.
 */
export async function ensureSampleDataset(cacheDir = defaultCacheDir()): Promise<SampleDataset> {
  const root = join(cacheDir, `swebench-sample-v${SAMPLE_SET_VERSION}`);
  const instancesPath = join(root, "instances.json");
  if (!existsSync(instancesPath)) {
    await mkdir(cacheDir, { recursive: true });
    const tmp = await mkdtemp(join(cacheDir, ".swebench-sample-build-"));
    try {
      const reposDir = join(tmp, "repos");
      const instances: SwebenchInstance[] = [];
      for (const spec of SAMPLE_REPO_SPECS) instances.push(await buildRepo(reposDir, spec));
      await writeFile(join(tmp, "instances.json"), JSON.stringify(instances, null, 2) + "\n");
      await rename(tmp, root).catch((err: NodeJS.ErrnoException) => {
        // Another builder won the race; its result is identical (deterministic commits).
        if (err.code !== "ENOTEMPTY" && err.code !== "EEXIST") throw err;
      });
    } finally {
      await rm(tmp, { recursive: true, force: true });
    }
  }
  const instances = parseInstances(await readFile(instancesPath, "utf8"), instancesPath);
  return { reposDir: join(root, "repos"), instancesPath, instances };
}

/** The gold patch of a sample instance (for the purple `gold` mode), or undefined. */
export async function sampleGoldPatch(instanceId: string, cacheDir?: string): Promise<string | undefined> {
  const ds = await ensureSampleDataset(cacheDir);
  return ds.instances.find((i) => i.instance_id === instanceId)?.patch;
}
