import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { execFileSync } from "node:child_process";
import { existsSync, readFileSync, statSync } from "node:fs";
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { exportCommitRepository } from "../../../src/benchmarks/swebench/export-tree.js";
import { historyRepo, type HistoryRepo } from "./fixtures/history-repo.js";

let root: string;
let repo: HistoryRepo;
beforeAll(async () => {
  root = await mkdtemp(join(tmpdir(), "a2a-export-tree-"));
  repo = historyRepo(join(root, "upstream"), { "pkg/mod.py": "def f():\n    return 1\n", README: "hi\n" });
});
afterAll(async () => {
  await rm(root, { recursive: true, force: true });
});

const gitIn = (dir: string, ...args: string[]): string =>
  execFileSync("git", args, { cwd: dir, encoding: "utf8" }).trim();
const fails = (dir: string, ...args: string[]): boolean => {
  try {
    execFileSync("git", args, { cwd: dir, stdio: "ignore" });
    return false;
  } catch {
    return true;
  }
};

describe("a repository holding the base commit alone, made on the host", () => {
  it("HEAD is the dataset's base commit (same hash), shallow at it; nothing before or after it is there", async () => {
    const dest = join(root, "base-repo");
    const made = await exportCommitRepository(repo.dir, repo.base.slice(0, 12), dest);
    expect(made).toEqual({ commit: repo.base, tree: gitIn(repo.dir, "rev-parse", `${repo.base}^{tree}`) });
    expect(gitIn(dest, "rev-parse", "HEAD")).toBe(repo.base);
    expect(gitIn(dest, "symbolic-ref", "HEAD")).toBe("refs/heads/main");
    expect(gitIn(dest, "log", "--all", "--format=%H")).toBe(repo.base);
    expect(gitIn(dest, "log", "-1", "--format=%s")).toBe("base");
    expect(readFileSync(join(dest, ".git", "shallow"), "utf8")).toBe(`${repo.base}\n`);
    expect(fails(dest, "cat-file", "-e", repo.future)).toBe(true);
    expect(fails(dest, "cat-file", "-e", repo.ancestor)).toBe(true);
    expect(fails(dest, "cat-file", "-e", `${repo.future}:FUTURE_FIX.txt`)).toBe(true);
    expect(gitIn(dest, "for-each-ref", "--format=%(refname)")).toBe("refs/heads/main");
    expect(gitIn(dest, "status", "--porcelain", "--ignored")).toBe("");
    expect(existsSync(join(dest, "ANCESTOR_ONLY.txt")) || existsSync(join(dest, "FUTURE_FIX.txt"))).toBe(false);
    expect(readFileSync(join(dest, "pkg", "mod.py"), "utf8")).toBe("def f():\n    return 1\n");
    // Every object present is the base commit's: the commit, its trees and its blobs.
    const present = gitIn(dest, "cat-file", "--batch-all-objects", "--batch-check=%(objectname)").split("\n").sort();
    const own = gitIn(repo.dir, "rev-list", "--objects", "--no-walk", repo.base)
      .split("\n")
      .map((l) => l.split(" ")[0]!)
      .sort();
    expect(present).toEqual(own);
    expect(gitIn(dest, "fsck", "--no-dangling")).toBe("");
    // An agent's usual commands work on it.
    expect(gitIn(dest, "diff", repo.base, "--stat")).toBe("");
  });

  it("git's background work is off in its config, and the clone is only read", async () => {
    const before = gitIn(repo.dir, "for-each-ref");
    const dest = join(root, "config-repo");
    await exportCommitRepository(repo.dir, repo.base, dest);
    expect(gitIn(dest, "config", "gc.auto")).toBe("0");
    expect(gitIn(dest, "config", "gc.autoDetach")).toBe("false");
    expect(gitIn(dest, "config", "maintenance.auto")).toBe("false");
    expect(gitIn(repo.dir, "for-each-ref")).toBe(before);
    expect(gitIn(repo.dir, "rev-parse", "HEAD")).toBe(repo.future);
  });

  // /dev/shm is a file system of its own on most hosts: the clone's git may not rename a pack into it.
  const otherFs = existsSync("/dev/shm") && statSync("/dev/shm").dev !== statSync(tmpdir()).dev;
  it.skipIf(!otherFs)("works when the clone and the new repository lie on different file systems", async () => {
    const dest = await mkdtemp(join("/dev/shm", "a2a-export-tree-"));
    try {
      const made = await exportCommitRepository(repo.dir, repo.base, join(dest, "repo"));
      expect(made.commit).toBe(repo.base);
      expect(gitIn(join(dest, "repo"), "log", "--all", "--format=%H")).toBe(repo.base);
      expect(gitIn(join(dest, "repo"), "status", "--porcelain")).toBe("");
    } finally {
      await rm(dest, { recursive: true, force: true });
    }
  });

  it("an unknown commit is our error, named", async () => {
    await expect(exportCommitRepository(repo.dir, "0".repeat(40), join(root, "none"))).rejects.toMatchObject({
      code: "E_SWEBENCH_EPISODE",
    });
  });
});
