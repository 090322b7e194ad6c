import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { mkdtemp, readFile, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { applyPatch } from "../../../src/benchmarks/swebench/apply-patch.js";
import { gitOk, type Tree } from "../../../src/benchmarks/swebench/git.js";
import { ruleSet } from "../../../src/benchmarks/swebench/rules.js";
import { resetTree } from "../../../src/benchmarks/swebench/worktree.js";

let dir: string;
let tree: Tree;
let scratch: string;
const FILE = ["def f():", "    a = 1", "    b = 2", "    c = 3", "    return a + b + c", ""].join("\n");
beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), "apply-"));
  scratch = await mkdtemp(join(tmpdir(), "apply-scratch-"));
  await gitOk(dir, ["init", "-q"]);
  await writeFile(join(dir, "m.py"), FILE);
  await gitOk(dir, ["add", "-A"]);
  await gitOk(dir, ["commit", "-qm", "base"]);
  tree = { path: dir, gitDir: join(dir, ".git") };
});
afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
  await rm(scratch, { recursive: true, force: true });
});

describe("applyPatch (SWE-bench's strategy order)", () => {
  it("applies a clean diff with git apply", async () => {
    const diff = "--- a/m.py\n+++ b/m.py\n@@ -2,3 +2,3 @@\n     a = 1\n-    b = 2\n+    b = 20\n     c = 3\n";
    expect(await applyPatch(tree, diff, scratch)).toMatchObject({ applied: true, strategy: "git_apply" });
    expect(await readFile(join(dir, "m.py"), "utf8")).toContain("b = 20");
    await gitOk(dir, ["checkout", "--", "."]);
  });
  it("falls back to patch --fuzz when the context drifted (hand-edited diff)", async () => {
    // Context line "a = 1 " has a trailing space the file lacks: git apply refuses, patch's fuzz accepts.
    const diff =
      "--- a/m.py\n+++ b/m.py\n@@ -1,4 +1,4 @@\n def f():\n     a = 1 \n-    b = 2\n+    b = 21\n     c = 3\n";
    const r = await applyPatch(tree, diff, scratch);
    expect(r).toMatchObject({ applied: true, strategy: "patch_fuzz_forward" });
    expect(await readFile(join(dir, "m.py"), "utf8")).toContain("b = 21");
    await gitOk(dir, ["checkout", "--", "."]);
  });
  it("reports a diff that applies nowhere and leaves the tree clean", async () => {
    const diff = "--- a/m.py\n+++ b/m.py\n@@ -1,3 +1,3 @@\n def g():\n-    x = 9\n+    x = 10\n     y = 8\n";
    const r = await applyPatch(tree, diff, scratch);
    expect(r).toMatchObject({ applied: false, strategy: null });
    expect((await gitOk(dir, ["status", "--porcelain"])).trim()).toBe("");
    expect(await readFile(join(dir, "m.py"), "utf8")).toBe(FILE);
  });
  it("refuses a diff that reaches into .git, before patch --fuzz could write it", async () => {
    // git apply rejects the path, but GNU patch would rewrite the file (here the repository's config).
    const config = await readFile(join(dir, ".git", "config"), "utf8");
    const diff = '--- a/.git/config\n+++ b/.git/config\n@@ -1 +1,2 @@\n [core]\n+\tfsmonitor = "touch pwned"\n';
    const r = await applyPatch(tree, diff, scratch);
    expect(r).toMatchObject({ applied: false, strategy: null });
    expect(r.log).toContain(".git/config");
    expect(await readFile(join(dir, ".git", "config"), "utf8")).toBe(config);
  });

  // A reversed patch: its post-image is what the base already has. The official releases differ.
  const REVERSED = "--- a/m.py\n+++ b/m.py\n@@ -2,3 +2,3 @@\n     a = 1\n-    b = 20\n+    b = 2\n     c = 3\n";
  it("5.0.2: a reversed patch is never applied backwards (patch --forward); the reverse check calls it already applied, the tree unchanged", async () => {
    const r = await applyPatch(tree, REVERSED, scratch, "model.patch", ruleSet("5.0.2"));
    expect(r).toMatchObject({ applied: true, strategy: "already_applied" });
    expect(await readFile(join(dir, "m.py"), "utf8")).toBe(FILE);
    await resetTree(tree, "HEAD");
  });
  it("4.1.0: `patch --batch` without --forward applies a reversed patch backwards, as that release does", async () => {
    const r = await applyPatch(tree, REVERSED, scratch, "model.patch", ruleSet("4.1.0"));
    expect(r).toMatchObject({ applied: true, strategy: "patch_fuzz" });
    expect(await readFile(join(dir, "m.py"), "utf8")).toContain("b = 20");
    await resetTree(tree, "HEAD");
  });
  it("5.0.2: a patch that applies nowhere, forwards or backwards, is refused and the tree left clean", async () => {
    const diff = "--- a/m.py\n+++ b/m.py\n@@ -1,3 +1,3 @@\n def g():\n-    x = 9\n+    x = 10\n     y = 8\n";
    expect(await applyPatch(tree, diff, scratch, "model.patch", ruleSet("5.0.2"))).toMatchObject({ applied: false });
    expect((await gitOk(dir, ["status", "--porcelain", "--ignored"])).trim()).toBe("");
  });
});
