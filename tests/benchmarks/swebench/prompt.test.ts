import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { mkdir, mkdtemp, rm, symlink, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { repoContext, rankFiles } from "../../../src/benchmarks/swebench/prompt.js";
import { gitOk, type Tree } from "../../../src/benchmarks/swebench/git.js";

let root: string;
let tree: Tree;
const SECRET = "host-secret-4711";

beforeAll(async () => {
  root = await mkdtemp(join(tmpdir(), "prompt-"));
  const repo = join(root, "repo");
  await mkdir(join(repo, "pkg"), { recursive: true });
  await mkdir(join(repo, "tests"), { recursive: true });
  await writeFile(join(root, "outside.txt"), `${SECRET}\n`);
  await gitOk(repo, ["init", "-q"]);
  await writeFile(join(repo, "pkg", "slug.py"), "def slugify(text):\n    return text\n");
  await writeFile(join(repo, "pkg", "other.py"), "def unrelated():\n    pass\n");
  await writeFile(join(repo, "tests", "test_slug.py"), "def test_slugify():\n    assert slugify\n");
  // A tracked symlink whose name the issue mentions: listed, never read.
  await symlink(join(root, "outside.txt"), join(repo, "pkg", "leak.py"));
  await gitOk(repo, ["add", "-A"]);
  await gitOk(repo, ["commit", "-qm", "base"]);
  tree = { path: repo, gitDir: join(repo, ".git") };
});
afterAll(async () => {
  await rm(root, { recursive: true, force: true });
});

describe("repoContext", () => {
  it("lists tracked files, shows related regular source files, and never reads tests or symlinks", async () => {
    const ctx = await repoContext(tree, "slugify() in pkg/slug.py mangles input; see also pkg/leak.py");
    expect(ctx.files.sort()).toEqual(["pkg/leak.py", "pkg/other.py", "pkg/slug.py", "tests/test_slug.py"]);
    expect(ctx.relevant.map((f) => f.path)).toEqual(["pkg/slug.py"]);
    expect(JSON.stringify(ctx)).not.toContain(SECRET);
  });
  it("ranks files named in the issue first, then by identifier overlap", () => {
    const ranked = rankFiles("the parse_config function in util.py", [
      { path: "a/other.py", content: "def parse_config(): pass" },
      { path: "b/util.py", content: "x = 1" },
      { path: "c/none.py", content: "y = 2" },
    ]);
    expect(ranked.map((f) => f.path)).toEqual(["b/util.py", "a/other.py", "c/none.py"]);
  });
});
