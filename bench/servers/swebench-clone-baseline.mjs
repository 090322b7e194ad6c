// Row 8 baseline: the runner's per-instance steps with ONE FRESH CLONE per
// instance instead of a worktree (the runner has no clone mode): git clone
// (local, --no-hardlinks: a full copy of the objects, as a clone from a remote
// yields), checkout of base_commit, git apply of the gold patch and the
// test_patch, the same test command in the same sandbox (bash, workDir), the
// same log parser and grading, then removal. Concurrency 2 (the runner's default
// on 2 cores). Prints {"resolved": N, "total": M}.
// Usage: node bench/servers/swebench-clone-baseline.mjs <concurrency>
import { execFileSync } from "node:child_process";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { DIST } from "../lib/paths.mjs";

const { ensureSampleDataset } = await import(join(DIST, "benchmarks/swebench/sample-dataset.js"));
const { locateRepo } = await import(join(DIST, "benchmarks/swebench/repo-locator.js"));
const { testSpecFor, testFilesOf } = await import(join(DIST, "benchmarks/swebench/test-spec.js"));
const { LOG_PARSERS } = await import(join(DIST, "benchmarks/swebench/log-parsers.js"));
const { testsStatus, resolutionStatus } = await import(join(DIST, "benchmarks/swebench/grading.js"));
// The sandbox entry alone (not the whole library index: express, the SDK), so the baseline loads no more than its steps need.
const { createSandbox } = await import(join(DIST, "sandbox/index.js"));
const { silentLogger } = await import(join(DIST, "util/logger.js"));

const concurrency = Number(process.argv[2] ?? 2);
const ds = await ensureSampleDataset();
const sandbox = await createSandbox({ backend: "local", logger: silentLogger(), concurrency });
const git = (cwd, args) => execFileSync("git", args, { cwd, stdio: ["ignore", "pipe", "pipe"] });
let resolved = 0;

async function one(inst) {
  const scratch = mkdtempSync(join(tmpdir(), "a2a-bench-clone-"));
  const repo = join(scratch, "repo");
  try {
    git(scratch, ["clone", "--quiet", "--no-hardlinks", "--no-checkout", locateRepo(ds.reposDir, inst.repo), repo]);
    git(repo, ["checkout", "--quiet", "--detach", inst.base_commit]);
    writeFileSync(join(scratch, "gold.patch"), inst.patch.endsWith("\n") ? inst.patch : inst.patch + "\n");
    git(repo, ["apply", join(scratch, "gold.patch")]);
    writeFileSync(join(scratch, "test.patch"), inst.test_patch.endsWith("\n") ? inst.test_patch : inst.test_patch + "\n");
    git(repo, ["apply", join(scratch, "test.patch")]);
    const spec = testSpecFor(inst.repo);
    const out = await sandbox.exec({ language: "bash", code: spec.command(testFilesOf(inst)), timeoutMs: 60_000, workDir: repo, env: { ...spec.env } });
    const statuses = LOG_PARSERS[spec.framework](`${out.stdoutTail}\n${out.stderrTail}`);
    if (resolutionStatus(testsStatus(inst.FAIL_TO_PASS, inst.PASS_TO_PASS, statuses)) === "RESOLVED_FULL") resolved++;
  } finally {
    rmSync(scratch, { recursive: true, force: true });
  }
}

const queue = [...ds.instances];
await Promise.all(Array.from({ length: concurrency }, async () => { while (queue.length) await one(queue.shift()); }));
await sandbox.close();
process.stdout.write(JSON.stringify({ resolved, total: ds.instances.length }) + "\n");
