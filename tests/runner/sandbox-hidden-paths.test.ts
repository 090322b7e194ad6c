import { describe, expect, it } from "vitest";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { homedir, tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { sandboxHiddenPaths } from "../../src/runner/sandbox-hidden-paths.js";
import { packageRoot } from "../../src/util/package-root.js";

describe("sandboxHiddenPaths (what a run tells its sandbox to hide)", () => {
  it("names the datasets root, the output dir, the checkout, the cache root and HOME", () => {
    const env = { A2A_BENCH_DATASETS: "/srv/datasets", A2A_BENCH_CACHE_DIR: "/srv/cache" };
    const paths = sandboxHiddenPaths({ out: "runs/r1", dataset: "sample" }, env);
    expect(paths).toEqual(["/srv/datasets", resolve("runs/r1"), packageRoot, "/srv/cache", homedir()]);
  });

  it("adds a dataset given as a file path; the cache root follows XDG_CACHE_HOME", () => {
    const dir = mkdtempSync(join(tmpdir(), "a2a-hidden-"));
    try {
      const file = join(dir, "problems.jsonl");
      writeFileSync(file, "{}\n");
      const paths = sandboxHiddenPaths({ out: "/srv/out", dataset: file }, { XDG_CACHE_HOME: "/srv/xdg" });
      expect(paths).toContain(file);
      expect(paths).toContain("/srv/xdg/a2a-bench");
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
