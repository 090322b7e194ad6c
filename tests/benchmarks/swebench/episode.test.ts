/**
 * The interactive environment's repository, prepared by the scripts the episode runs in it, here run
 * with bash on this host against repositories that carry history: HEAD is the dataset's base commit
 * (same hash), nothing after it (nor before it) is reachable or even present, and no git step starts
 * git's background work. The same scripts in an image: tests/benchmarks/swebench/container/episode.test.ts;
 * on the local backend end to end: episode-local.test.ts.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { execFileSync, spawnSync } from "node:child_process";
import { chmodSync, existsSync, mkdirSync, readdirSync, readFileSync, statSync, writeFileSync } from "node:fs";
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { FRESH_REPO_SCRIPT, FRESH_TREE_SCRIPT, episodeInstruction } from "../../../src/benchmarks/swebench/episode.js";
import { exportCommitRepository } from "../../../src/benchmarks/swebench/export-tree.js";
import type { SwebenchInstance } from "../../../src/benchmarks/swebench/instance.js";
import { historyRepo } from "./fixtures/history-repo.js";

let root: string;
let n = 0;
beforeAll(async () => {
  root = await mkdtemp(join(tmpdir(), "a2a-episode-repo-"));
});
afterAll(async () => {
  await rm(root, { recursive: true, force: true });
});

const FILES = { "pkg/mod.py": "def f():\n    return 1\n", "tests/test_mod.py": "def test_f():\n    pass\n" };

const gitIn = (dir: string, ...args: string[]): string =>
  execFileSync("git", args, { cwd: dir, encoding: "utf8" }).trim();
const fails = (dir: string, ...args: string[]): boolean =>
  spawnSync("git", args, { cwd: dir, stdio: "ignore" }).status !== 0;

/**
 * A home whose git config would have git collect garbage after nearly any command, a `git` on PATH that
 * logs each call's arguments, and GIT_TRACE logging every git process (the automatic gc included).
 */
function hostileGitEnv(): { env: NodeJS.ProcessEnv; calls: () => string[][]; trace: () => string } {
  const dir = join(root, `env-${++n}`);
  mkdirSync(join(dir, "bin"), { recursive: true });
  writeFileSync(join(dir, ".gitconfig"), "[gc]\n\tauto = 1\n\tautoPackLimit = 1\n[maintenance]\n\tauto = true\n");
  const real = execFileSync("bash", ["-c", "command -v git"], { encoding: "utf8" }).trim();
  // One file per call: git processes running at once (a pipeline, a sub-git) never share a write.
  const log = join(dir, "calls");
  mkdirSync(log);
  writeFileSync(
    join(dir, "bin", "git"),
    `#!/bin/bash\nprintf '%s\\0' "$@" | python3 -c 'import sys,json; print(json.dumps(sys.stdin.read().split("\\0")[:-1]))' > "$(mktemp ${log}/call.XXXXXX)"\nexec ${real} "$@"\n`,
  );
  chmodSync(join(dir, "bin", "git"), 0o755);
  const trace = join(dir, "trace.txt");
  return {
    env: { ...process.env, HOME: dir, PATH: `${join(dir, "bin")}:${process.env["PATH"]}`, GIT_TRACE: trace },
    calls: () => readdirSync(log).map((f) => JSON.parse(readFileSync(join(log, f), "utf8")) as string[]),
    trace: () => (existsSync(trace) ? readFileSync(trace, "utf8") : ""),
  };
}

function runScript(script: string, env: NodeJS.ProcessEnv, ...args: string[]): { status: number | null; out: string } {
  const r = spawnSync("bash", ["-c", script, "script", ...args], { env, encoding: "utf8" });
  return { status: r.status, out: r.stdout + r.stderr };
}

/** What both ways in must leave: the base commit alone, checked out, background work off. */
function expectBaseAlone(dir: string, repo: ReturnType<typeof historyRepo>): void {
  expect(gitIn(dir, "rev-parse", "HEAD")).toBe(repo.base);
  expect(gitIn(dir, "log", "--format=%H")).toBe(repo.base);
  expect(gitIn(dir, "log", "--all", "--format=%H")).toBe(repo.base);
  expect(gitIn(dir, "log", "-1", "--format=%H %s")).toBe(`${repo.base} base`);
  expect(gitIn(dir, "for-each-ref", "--format=%(refname)")).toBe("refs/heads/main");
  expect(readFileSync(join(dir, ".git", "shallow"), "utf8").trim()).toBe(repo.base);
  // Future history is unreachable because it is not there at all (SWE-bench's leaked-history fix).
  expect(fails(dir, "cat-file", "-e", repo.future)).toBe(true);
  expect(fails(dir, "cat-file", "-e", repo.ancestor)).toBe(true);
  expect(existsSync(join(dir, ".git", "ORIG_HEAD")) || existsSync(join(dir, ".git", "packed-refs"))).toBe(false);
  expect(gitIn(dir, "status", "--porcelain", "--untracked-files=no")).toBe("");
  expect(gitIn(dir, "diff", repo.base)).toBe("");
  expect(existsSync(join(dir, "FUTURE_FIX.txt"))).toBe(false);
  expect(gitIn(dir, "config", "gc.auto")).toBe("0");
  expect(gitIn(dir, "config", "maintenance.auto")).toBe("false");
  expect(existsSync(join(dir, ".git", "gc.pid")) || existsSync(join(dir, ".git", "gc.log"))).toBe(false);
}

/** Every git the script ran carried the settings; no git process ran gc or maintenance. */
function expectNoBackgroundWork(g: ReturnType<typeof hostileGitEnv>): void {
  const calls = g.calls();
  expect(calls.length).toBeGreaterThan(5);
  for (const call of calls) {
    const settings = call.flatMap((a, i) => (call[i - 1] === "-c" ? [a] : []));
    expect(settings, call.join(" ")).toEqual(expect.arrayContaining(["gc.auto=0", "maintenance.auto=false"]));
  }
  expect(g.trace()).toContain("trace: ");
  expect(g.trace()).not.toMatch(/(built-in|run_command|exec|git_cmd|cmd): (git )?(gc|maintenance)\b/);
}

describe("an image's repository re-created at the base commit (FRESH_REPO_SCRIPT)", () => {
  it("keeps the base commit's hash as HEAD and drops everything before and after it", () => {
    const repo = historyRepo(join(root, `image-${++n}`), FILES);
    // The image's tree: the upstream clone at the base, a tracked file edited by the image's set-up, an untracked one.
    gitIn(repo.dir, "-c", "advice.detachedHead=false", "checkout", "-q", repo.base);
    writeFileSync(join(repo.dir, "pkg", "mod.py"), "edited by the image\n");
    writeFileSync(join(repo.dir, "build.log"), "untracked\n");
    const g = hostileGitEnv();
    const r = runScript(FRESH_REPO_SCRIPT, g.env, repo.dir, repo.base);
    expect(r.status, r.out).toBe(0);
    expect(r.out.trim().split("\n").at(-1)).toBe(`ok ${repo.base}`);
    expectBaseAlone(repo.dir, repo);
    // Tracked files are the base commit's again; what the image's set-up left untracked stays (as built).
    expect(readFileSync(join(repo.dir, "pkg", "mod.py"), "utf8")).toBe(FILES["pkg/mod.py"]);
    expect(gitIn(repo.dir, "status", "--porcelain")).toBe("?? build.log");
    expectNoBackgroundWork(g);
  }, 180_000);

  it("works from a repository whose HEAD is elsewhere and whose base is named by a short hash; leaves no old .git", () => {
    const repo = historyRepo(join(root, `image-${++n}`), FILES);
    const g = hostileGitEnv();
    // mktemp's directory on another file system (an image's /tmp may be a tmpfs): nothing goes there.
    const otherFs = existsSync("/dev/shm") && statSync("/dev/shm").dev !== statSync(repo.dir).dev;
    const env = otherFs ? { ...g.env, TMPDIR: "/dev/shm" } : g.env;
    const r = runScript(FRESH_REPO_SCRIPT, env, repo.dir, repo.base.slice(0, 10));
    expect(r.status, r.out).toBe(0);
    expect(r.out.trim().split("\n").at(-1)).toBe(`ok ${repo.base}`);
    expectBaseAlone(repo.dir, repo);
    expect(gitIn(repo.dir, "status", "--porcelain", "--ignored")).toBe("");
  }, 180_000);
});

describe("a host-made repository checked in the environment (FRESH_TREE_SCRIPT)", () => {
  it("accepts the base commit alone and prints it", async () => {
    const repo = historyRepo(join(root, `up-${++n}`), FILES);
    const dest = join(root, `copy-${n}`);
    const made = await exportCommitRepository(repo.dir, repo.base, dest);
    const g = hostileGitEnv();
    const r = runScript(FRESH_TREE_SCRIPT, g.env, dest, made.commit, made.tree);
    expect(r.status, r.out).toBe(0);
    expect(r.out.trim().split("\n").at(-1)).toBe(`ok ${repo.base}`);
    expectBaseAlone(dest, repo);
    expectNoBackgroundWork(g);
  }, 180_000);

  it("refuses a copy that is not the base commit alone or not its tree", async () => {
    const repo = historyRepo(join(root, `up-${++n}`), FILES);
    const dest = join(root, `copy-${n}`);
    const made = await exportCommitRepository(repo.dir, repo.base, dest);
    const g = hostileGitEnv();
    writeFileSync(join(dest, "pkg", "mod.py"), "changed\n");
    expect(runScript(FRESH_TREE_SCRIPT, g.env, dest, made.commit, made.tree)).toMatchObject({
      status: 3,
      out: expect.stringContaining("the working tree is not the base tree: pkg/mod.py") as unknown,
    });
    gitIn(dest, "checkout", "--", "pkg/mod.py");
    expect(runScript(FRESH_TREE_SCRIPT, g.env, dest, repo.future, made.tree)).toMatchObject({ status: 3 });
    expect(runScript(FRESH_TREE_SCRIPT, g.env, dest, made.commit, made.tree).status).toBe(0);
  }, 180_000);
});

describe("the task", () => {
  it("names the base commit", () => {
    const inst = { repo: "o/r", base_commit: "a".repeat(40), problem_statement: "bug" } as SwebenchInstance;
    expect(episodeInstruction(inst)).toContain(`at its base commit ${"a".repeat(40)} (HEAD)`);
  }, 180_000);
});
