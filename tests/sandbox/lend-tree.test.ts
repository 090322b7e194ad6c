import { describe, expect, test } from "vitest";
import { chownSync, lstatSync, mkdirSync, mkdtempSync, rmSync, symlinkSync, writeFileSync, statSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { lendTree } from "../../src/sandbox/local/lend-tree.js";

const isRoot = process.getuid?.() === 0;

describe("lendTree", () => {
  test.skipIf(!isRoot)(
    "lends a whole tree to the sandbox uid and gives every entry back, symlinks not followed (needs root)",
    async () => {
      const root = mkdtempSync(join(tmpdir(), "a2a-lend-"));
      try {
        const tree = join(root, "tree");
        mkdirSync(join(tree, "a", "b"), { recursive: true });
        writeFileSync(join(tree, "a", "b", "f.txt"), "x");
        const outside = join(root, "outside.txt");
        writeFileSync(outside, "host");
        symlinkSync(outside, join(tree, "a", "link"));
        const restore = await lendTree(tree, 65534, 65534);
        for (const p of [
          tree,
          join(tree, "a"),
          join(tree, "a", "b"),
          join(tree, "a", "b", "f.txt"),
          join(tree, "a", "link"),
        ]) {
          expect(lstatSync(p).uid, p).toBe(65534);
        }
        expect(statSync(outside).uid).toBe(0); // the link's target is not touched
        // An entry the program created (owned by the sandbox uid) is given back too.
        writeFileSync(join(tree, "created-later"), "by the program");
        chownSync(join(tree, "created-later"), 65534, 65534);
        await restore();
        for (const p of [tree, join(tree, "a", "b", "f.txt"), join(tree, "a", "link"), join(tree, "created-later")]) {
          expect(lstatSync(p).uid, p).toBe(0);
        }
      } finally {
        rmSync(root, { recursive: true, force: true });
      }
    },
  );

  test("a missing directory is refused before anything runs", async () => {
    await expect(lendTree(join(tmpdir(), "a2a-lend-does-not-exist"), 65534, 65534)).rejects.toThrow(/ENOENT/);
  });
});
