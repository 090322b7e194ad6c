import { describe, expect, it } from "vitest";
import { gitDirPathIn, patchPaths, touchesGitDir, unquotePath } from "../../../src/benchmarks/swebench/patch-paths.js";

describe("patchPaths", () => {
  it("reads git, unified and context headers but not hunk bodies", () => {
    const patch = [
      "diff --git a/src/x.py b/src/y.py",
      "rename from src/x.py",
      "rename to src/y.py",
      "--- a/src/x.py\t2024-01-01 00:00:00",
      "+++ b/src/y.py",
      "@@ -1,2 +1,2 @@",
      "--- a/.git/config",
      "+++ not a header: the line above is a removed line",
      "Index: lib/z.c",
      "*** lib/z.c.orig",
      "--- lib/z.c",
      "",
    ].join("\n");
    const paths = patchPaths(patch);
    expect(paths).toEqual(
      expect.arrayContaining(["a/src/x.py", "b/src/y.py", "src/x.py", "src/y.py", "lib/z.c", "lib/z.c.orig"]),
    );
    // A "---"/"+++" pair inside a hunk still looks like a header to patch(1), so it is read as one.
    expect(paths).toContain("a/.git/config");
  });
  it("undoes git's C-style quoting", () => {
    expect(unquotePath('"a/\\303\\244 b\\tc"')).toBe("a/ä b\tc");
    expect(unquotePath("plain")).toBe("plain");
    expect(patchPaths('diff --git "a/sp ace" "b/.g\\151t/config"\n')).toEqual(["a/sp ace", "b/.git/config"]);
  });
});

describe("gitDirPathIn", () => {
  it("finds a .git component in any header, any case", () => {
    expect(gitDirPathIn("--- a/.git\n+++ b/.git\n@@ -1 +1 @@\n-x\n+y\n")).toBe("a/.git");
    expect(gitDirPathIn("diff --git a/sub/.GIT/hooks/x b/sub/.GIT/hooks/x\n")).toBe("a/sub/.GIT/hooks/x");
    expect(gitDirPathIn("--- a/m.py\r\n+++ b/m.py\r\n@@ -1 +1 @@\r\n-a\r\n+b\r\n")).toBeNull();
  });
  it("leaves look-alike names alone", () => {
    expect(touchesGitDir("a/.gitignore")).toBe(false);
    expect(touchesGitDir("a/x.git/y")).toBe(false);
    expect(touchesGitDir("a/.git")).toBe(true);
  });
});
