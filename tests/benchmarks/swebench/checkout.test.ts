import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { mkdir, mkdtemp, readFile, readdir, rm, stat, utimes, writeFile } from "node:fs/promises";
import { existsSync } from "node:fs";
import { execFileSync } from "node:child_process";
import { sabotageProgram } from "../../support/leftovers.js";
import { tmpdir } from "node:os";
import { join, relative } from "node:path";
import { createCheckout } from "../../../src/benchmarks/swebench/checkout.js";
import { gitOk } from "../../../src/benchmarks/swebench/git.js";
import { silentLogger } from "../../../src/util/logger.js";

let root: string;
let repo: string;
let c1: string;
let c2: string;

beforeAll(async () => {
  root = await mkdtemp(join(tmpdir(), "checkout-"));
  repo = join(root, "repo");
  await mkdir(join(repo, "pkg"), { recursive: true });
  await gitOk(repo, ["init", "-q"]);
  await writeFile(join(repo, ".gitignore"), "*.pyc\n");
  await writeFile(join(repo, "pkg", "a.py"), "A = 1\n");
  await writeFile(join(repo, "pkg", "b.py"), "B = 1\n");
  await gitOk(repo, ["add", "-A"]);
  await gitOk(repo, ["commit", "-qm", "one"]);
  c1 = (await gitOk(repo, ["rev-parse", "HEAD"])).trim();
  await writeFile(join(repo, "pkg", "a.py"), "A = 2\n");
  await rm(join(repo, "pkg", "b.py"));
  await writeFile(join(repo, "pkg", "c.py"), "C = 2\n");
  await gitOk(repo, ["add", "-A"]);
  await gitOk(repo, ["commit", "-qm", "two"]);
  c2 = (await gitOk(repo, ["rev-parse", "HEAD"])).trim();
});
afterAll(async () => {
  await rm(root, { recursive: true, force: true });
});

async function files(dir: string): Promise<string[]> {
  const out: string[] = [];
  for (const e of await readdir(dir, { recursive: true, withFileTypes: true })) {
    if (e.isFile() || e.isSymbolicLink()) out.push(relative(dir, join(e.parentPath, e.name)));
  }
  return out.sort();
}

async function worktreeNames(): Promise<string[]> {
  return existsSync(join(repo, ".git", "worktrees")) ? await readdir(join(repo, ".git", "worktrees")) : [];
}

describe("worktree checkout (reused within a run)", () => {
  it("reuses a released tree for the next commit and leaves nothing after close", async () => {
    const co = createCheckout("worktree", join(root, "trees-1"), silentLogger(), 2);
    const t1 = await co.acquire(repo, c1);
    expect(await files(t1.path)).toEqual([".git", ".gitignore", "pkg/a.py", "pkg/b.py"]);
    expect(relative(t1.path, t1.gitDir).startsWith("..")).toBe(true);
    await co.release(repo, t1, true);
    const t2 = await co.acquire(repo, c2);
    expect(t2.path).toBe(t1.path);
    expect(await files(t2.path)).toEqual([".git", ".gitignore", "pkg/a.py", "pkg/c.py"]);
    expect(await readFile(join(t2.path, "pkg", "a.py"), "utf8")).toBe("A = 2\n");
    // Two in use at once: a second tree.
    const t3 = await co.acquire(repo, c1);
    expect(t3.path).not.toBe(t2.path);
    await co.release(repo, t2, true);
    await co.release(repo, t3, true);
    expect(await worktreeNames()).toHaveLength(2);
    await co.close();
    expect(await worktreeNames()).toEqual([]);
    expect(existsSync(t2.path) || existsSync(t3.path)).toBe(false);
  });

  it("undoes whatever untrusted code did to a tree before reuse, without running a planted gitdir's config", async () => {
    const co = createCheckout("worktree", join(root, "trees-2"), silentLogger());
    const t = await co.acquire(repo, c1);
    const a = join(t.path, "pkg", "a.py");
    // Backdate the file and let the index record that, so git's racy-timestamp check
    // (same second as the index) cannot be what catches the edit below.
    const old = new Date(Date.now() - 3_600_000);
    await utimes(a, old, old);
    await gitOk(t.path, ["update-index", "--refresh"], { env: { GIT_DIR: t.gitDir, GIT_WORK_TREE: t.path } });
    // Same size, same mtime: only ctime, which a program cannot set, tells git the file changed.
    await writeFile(a, "A = 9\n");
    await utimes(a, old, old);
    await writeFile(join(t.path, "pkg", "new.py"), "x\n");
    await writeFile(join(t.path, "pkg", "cache.pyc"), "ignored\n");
    await mkdir(join(t.path, "nested"));
    await gitOk(join(t.path, "nested"), ["init", "-q"]);
    // A fake repository whose config would run a command if git ever read it.
    const evil = join(t.path, "evil");
    await mkdir(join(evil, "objects"), { recursive: true });
    await mkdir(join(evil, "refs"), { recursive: true });
    await writeFile(join(evil, "HEAD"), "ref: refs/heads/main\n");
    const marker = join(root, "fsmonitor-ran");
    await writeFile(
      join(evil, "config"),
      `[core]\n\trepositoryformatversion = 0\n\tfsmonitor = "touch ${marker}; false"\n`,
    );
    await writeFile(join(t.path, ".git"), "gitdir: ./evil\n");
    await co.release(repo, t, true);

    const again = await co.acquire(repo, c1);
    expect(again.path).toBe(t.path);
    expect(existsSync(marker)).toBe(false);
    expect(await files(again.path)).toEqual([".git", ".gitignore", "pkg/a.py", "pkg/b.py"]);
    expect(await readFile(a, "utf8")).toBe("A = 1\n");
    expect((await readFile(join(again.path, ".git"), "utf8")).trim()).toBe(`gitdir: ${t.gitDir}`);
    await co.release(repo, again, true);
    await co.close();
    expect(await worktreeNames()).toEqual([]);
  });

  it("keeps at most maxIdle idle trees over all repositories, evicting the one released longest ago", async () => {
    const other = join(root, "other");
    await mkdir(other);
    await gitOk(other, ["init", "-q"]);
    await writeFile(join(other, "o.py"), "O = 1\n");
    await gitOk(other, ["add", "-A"]);
    await gitOk(other, ["commit", "-qm", "o"]);
    const o1 = (await gitOk(other, ["rev-parse", "HEAD"])).trim();
    const otherNames = async (): Promise<string[]> =>
      existsSync(join(other, ".git", "worktrees")) ? await readdir(join(other, ".git", "worktrees")) : [];

    const co = createCheckout("worktree", join(root, "trees-4"), silentLogger(), 1);
    const a = await co.acquire(repo, c1);
    const b = await co.acquire(other, o1);
    await co.release(repo, a, true);
    expect(existsSync(a.path)).toBe(true);
    // A second idle tree (of another repository) pushes out the older one.
    await co.release(other, b, true);
    expect(existsSync(a.path)).toBe(false);
    expect(await worktreeNames()).toEqual([]);
    expect(await otherNames()).toHaveLength(1);
    // The evicted repository gets a new tree; the kept one is reused.
    const a2 = await co.acquire(repo, c2);
    expect(a2.path).not.toBe(a.path);
    const b2 = await co.acquire(other, o1);
    expect(b2.path).toBe(b.path);
    await co.release(repo, a2, true);
    await co.release(other, b2, true);
    expect(existsSync(a2.path)).toBe(false);
    await co.close();
    expect(await worktreeNames()).toEqual([]);
    expect(await otherNames()).toEqual([]);
  });

  it("a tree left deeper than PATH_MAX with mode-000 directories, a FIFO and a socket is reset for reuse and removed at close", async () => {
    const co = createCheckout("worktree", join(root, "trees-4"), silentLogger());
    const t = await co.acquire(repo, c1);
    // Untracked at the top and inside a tracked directory, as a participant's program leaves them.
    execFileSync("python3", ["-c", sabotageProgram(join(t.path, "junk"))]);
    execFileSync("python3", ["-c", sabotageProgram(join(t.path, "pkg", "junk"))]);
    await co.release(repo, t, true);
    const again = await co.acquire(repo, c1);
    expect(again.path).toBe(t.path);
    expect(await files(again.path)).toEqual([".git", ".gitignore", "pkg/a.py", "pkg/b.py"]);
    // Left again, and the tree is removed (not reused) this time.
    execFileSync("python3", ["-c", sabotageProgram(join(again.path, "junk"))]);
    await co.release(repo, again, false);
    expect(existsSync(again.path)).toBe(false);
    expect(await worktreeNames()).toEqual([]);
    await co.close();
  });

  it("removes instead of keeping a tree released as not reusable", async () => {
    const co = createCheckout("worktree", join(root, "trees-3"), silentLogger());
    const t = await co.acquire(repo, c2);
    await co.release(repo, t, false);
    expect(existsSync(t.path)).toBe(false);
    expect(await worktreeNames()).toEqual([]);
    const u = await co.acquire(repo, c2);
    expect(u.path).not.toBe(t.path);
    await co.close();
    expect(await worktreeNames()).toEqual([]);
  });
});

describe("clone checkout", () => {
  it("makes a fresh clone per acquire, its git directory outside the tree, and removes it on release", async () => {
    const co = createCheckout("clone", join(root, "clones"), silentLogger());
    const t = await co.acquire(repo, c1);
    expect(await files(t.path)).toEqual([".git", ".gitignore", "pkg/a.py", "pkg/b.py"]);
    expect(relative(t.path, t.gitDir).startsWith("..")).toBe(true);
    expect((await stat(join(t.path, ".git"))).isFile()).toBe(true);
    const u = await co.acquire(repo, c2);
    expect(u.path).not.toBe(t.path);
    await co.release(repo, t, true);
    await co.release(repo, u, true);
    expect(existsSync(t.path) || existsSync(t.gitDir) || existsSync(u.path)).toBe(false);
    expect(await worktreeNames()).toEqual([]);
    await co.close();
  });
});
