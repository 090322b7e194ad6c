import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { chmod, mkdir, mkdtemp, rm } from "node:fs/promises";
import { join } from "node:path";
import { createSandbox } from "../../../src/sandbox/index.js";
import type { Sandbox } from "../../../src/sandbox/types.js";
import { createSwebenchBenchmark } from "../../../src/benchmarks/swebench/definition.js";
import { ensureSampleDataset, type SampleDataset } from "../../../src/benchmarks/swebench/sample-dataset.js";
import type { Participant } from "../../../src/a2a/shared/participant.js";
import { testRunOptions } from "../../support/run-options.js";
import { silentLogger } from "../../../src/util/logger.js";
import { locateRepo } from "../../../src/benchmarks/swebench/repo-locator.js";
import { addWorktree, removeWorktree } from "../../../src/benchmarks/swebench/worktree.js";
import { execFileSync } from "node:child_process";
import { readdirSync, statSync } from "node:fs";

/** `git worktree list` of a repository, one entry per tree (paths only). */
const worktreeList = (repo: string): string[] =>
  execFileSync("git", ["-C", repo, "worktree", "list", "--porcelain"], { encoding: "utf8" })
    .split("\n")
    .filter((l) => l.startsWith("worktree "));
import { packageRoot } from "../../../src/util/package-root.js";

let sandbox: Sandbox;
let root: string;
let ds: SampleDataset;
beforeAll(async () => {
  sandbox = await createSandbox({ backend: "local", logger: silentLogger(), concurrency: 2 });
  // Under the package (like the CLI's default results/ dir), not the host's /tmp: inside the sandbox /tmp is a
  // fresh tmpfs, and the mount-point parents bwrap creates there for a workDir are not traversable by the
  // sandbox uid (reported to the sandbox part); on the host the same holds for 0700 parents. Git-ignored (.cache/).
  await mkdir(join(packageRoot, ".cache"), { recursive: true });
  root = await mkdtemp(join(packageRoot, ".cache", "swebench-sbx-"));
  await chmod(root, 0o755); // the sandbox uid must traverse the workDir's parents (mkdtemp makes 0700)
  ds = await ensureSampleDataset(join(root, "cache"));
});
afterAll(async () => {
  await sandbox?.close();
  await rm(root, { recursive: true, force: true });
});

const gold = (): Participant => ({
  url: "http://127.0.0.1:1/",
  ask: async (req) => ({
    text:
      "```diff\n" +
      ds.instances.find((i) =>
        String(req.data?.["instance_id"]).startsWith("hang")
          ? i.instance_id === ds.instances[1]!.instance_id
          : i.instance_id === req.data?.["instance_id"],
      )!.patch +
      "```",
    data: [],
    state: "completed",
  }),
  close: async () => {},
});

describe("swebench with the real sandbox", () => {
  it("runs each instance's tests in the sandbox on the worktree with the default limits: gold resolves 100 % (strictly too), no patch resolves 0 %", async () => {
    // No limit given: SWE-bench's own (the official harness's 1,800 s for a test run; its probes at least as
    // long), never HumanEval's 3 s per program. --strict-tests: the inventory probes must not flag gold.
    const options = testRunOptions({
      benchmark: "swebench",
      out: join(root, "out"),
      run_id: "s",
      dataset: "sample",
      repos_dir: ds.reposDir,
      strict_tests: true,
    });
    expect(options.per_task_timeout_seconds).toBe(1800);
    const bench = createSwebenchBenchmark();
    const ctx = (participant: Participant) => ({
      options,
      sandbox,
      participant,
      logger: silentLogger(),
      signal: new AbortController().signal,
      workDir: join(root, "work"),
    });
    const rows = await Promise.all(
      ds.instances.map((instance) => bench.evaluate({ id: instance.instance_id, instance }, ctx(gold()))),
    );
    expect(rows.map((r) => `${r.id}:${r.status}:${String(r.error)}`)).toEqual(
      ds.instances.map((i) => `${i.instance_id}:RESOLVED_FULL:null`),
    );
    expect(rows.map((r) => [r["resolved_strict"], r["test_config_flags"]])).toEqual(rows.map(() => [true, []]));
    expect(bench.aggregate(rows, options)).toMatchObject({ resolved_rate: 1, patch_apply_rate: 1 });
    // The unfixed code fails its FAIL_TO_PASS tests under the same harness (the gold result is not vacuous),
    // on a worktree the sandboxed gold run had before (reused, reset to the base commit).
    const noop: Participant = {
      ...gold(),
      ask: async () => ({
        text:
          "```diff\n" +
          ds.instances[0]!.patch!.replace(/^\+ {4}return .*$/m, "+    return sep.join(w.lower() for w in words)") +
          "```",
        data: [],
        state: "completed",
      }),
    };
    const bad = await bench.evaluate({ id: ds.instances[0]!.instance_id, instance: ds.instances[0]! }, ctx(noop));
    expect(bad.status).not.toBe("RESOLVED_FULL");
    // And gold again on that same reused tree: the failed run left nothing behind that changes the verdict.
    const again = await bench.evaluate({ id: ds.instances[0]!.instance_id, instance: ds.instances[0]! }, ctx(gold()));
    expect(again.status).toBe("RESOLVED_FULL");
    const repos = [...new Set(ds.instances.map((i) => locateRepo(ds.reposDir, i.repo)))];
    expect(repos.map((r) => worktreeList(r).length).some((n) => n > 1)).toBe(true);
    await bench.endRun!({ options, logger: silentLogger(), workDir: join(root, "work") });
    expect(repos.map((r) => worktreeList(r).length)).toEqual(repos.map(() => 1));
  });

  it("checkout 'clone': gold resolves 100 % with a clone per instance, and the repositories get no worktree", async () => {
    const options = testRunOptions({
      benchmark: "swebench",
      out: join(root, "out-clone"),
      run_id: "c",
      dataset: "sample",
      repos_dir: ds.reposDir,
      checkout: "clone",
      per_task_timeout_seconds: 60,
      agent_timeout_seconds: 10,
    });
    const bench = createSwebenchBenchmark();
    const workDir = join(root, "work-clone");
    // The participant is asked once the instance's tree exists: record what kind of tree it is, and what
    // the repositories list as their worktrees at that moment.
    const seen: Array<{ clones: boolean; worktrees: number }> = [];
    const inspecting: Participant = {
      ...gold(),
      ask: async (req, signal) => {
        const trees = join(workDir, "swebench", "trees");
        const id = String(req.data?.["instance_id"]);
        const inst = ds.instances.find((i) => i.instance_id === id)!;
        // Each clone is <trees>/clone<n>-<pid>/{tree,git}: the tree's .git is a pointer to the sibling git dir.
        const clones = readdirSync(trees).every(
          (d) =>
            d.startsWith("clone") &&
            statSync(join(trees, d, "git")).isDirectory() &&
            statSync(join(trees, d, "tree", ".git")).isFile(),
        );
        seen.push({ clones, worktrees: worktreeList(locateRepo(ds.reposDir, inst.repo)).length });
        return gold().ask(req, signal);
      },
    };
    const ctx = {
      options,
      sandbox,
      participant: inspecting,
      logger: silentLogger(),
      signal: new AbortController().signal,
      workDir,
    };
    const rows = await Promise.all(
      ds.instances.map((instance) => bench.evaluate({ id: instance.instance_id, instance }, ctx)),
    );
    expect(rows.map((r) => `${r.id}:${r.status}:${String(r.error)}`)).toEqual(
      ds.instances.map((i) => `${i.instance_id}:RESOLVED_FULL:null`),
    );
    // Every tree was a clone, and no repository gained a worktree.
    expect(seen).toEqual(ds.instances.map(() => ({ clones: true, worktrees: 1 })));
  });

  it("single-shot: the tests (the patch's code) see the tree only, never the clone's history", async () => {
    const inst = ds.instances[0]!;
    const repo = locateRepo(ds.reposDir, inst.repo);
    const tree = await addWorktree(repo, join(root, "wt-history"), inst.base_commit);
    try {
      const r = await sandbox.exec({
        language: "bash",
        code: `cat .git; git log --all --format=%H 2>&1; ls ${repo} 2>&1; echo done`,
        timeoutMs: 60_000,
        workDir: tree.path,
      });
      expect(r.stdoutTail).toMatch(/^gitdir: /);
      expect(r.stdoutTail).toMatch(/fatal: not a git repository/);
      expect(r.stdoutTail).toMatch(/No such file or directory\ndone\n$/);
      expect(r.stdoutTail).not.toContain(inst.base_commit);
    } finally {
      await removeWorktree(repo, tree);
    }
  });

  it("a hanging test is stopped by the sandbox's time limit → TIMEOUT", async () => {
    const inst = ds.instances[1]!;
    const hanging = {
      ...inst,
      instance_id: "hang-sbx",
      test_patch: inst.test_patch.replace(
        "assert chunked([1, 2, 3, 4, 5], 2) == [[1, 2], [3, 4], [5]]",
        "import time; time.sleep(120)",
      ),
    };
    expect(hanging.test_patch).not.toBe(inst.test_patch);
    const options = testRunOptions({
      benchmark: "swebench",
      out: join(root, "out"),
      run_id: "s",
      dataset: "sample",
      repos_dir: ds.reposDir,
      per_task_timeout_seconds: 4,
      agent_timeout_seconds: 10,
    });
    const started = Date.now();
    const row = await createSwebenchBenchmark().evaluate(
      { id: hanging.instance_id, instance: hanging },
      {
        options,
        sandbox,
        participant: gold(),
        logger: silentLogger(),
        signal: new AbortController().signal,
        workDir: join(root, "work"),
      },
    );
    expect(Date.now() - started).toBeLessThan(30_000);
    // The patch applied (apply_strategy); the report's patch_successfully_applied is the official "log was gradable": false.
    expect(row).toMatchObject({
      status: "TIMEOUT",
      failure_mode: "timeout",
      apply_strategy: "git_apply",
      patch_successfully_applied: false,
      resolved: false,
      passed: false,
      log_void: "voiding_marker",
    });
    // What tells an overloaded host from a slow patch is in the row: the host's load when the run was stopped.
    expect(String(row.error)).toMatch(
      /^tests timed out after 4 s \(host load average [\d.]+ \(1 min\), [\d.]+ \(5 min\) on \d+ cores\)$/,
    );
  });
});
