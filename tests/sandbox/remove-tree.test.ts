import { describe, expect, test } from "vitest";
import { execFileSync, spawnSync } from "node:child_process";
import { chmodSync, existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { mountsWithin, removeTree, TreeRemovalError } from "../../src/sandbox/remove-tree.js";
import { sabotageProgram } from "../support/leftovers.js";

const isRoot = process.getuid?.() === 0;
const DIST = resolve(__dirname, "../../dist/sandbox/remove-tree.js");
const hasSetpriv = spawnSync("setpriv", ["--version"]).status === 0;
const hasUnshare = spawnSync("unshare", ["--version"]).status === 0;

/** A scratch directory with a participant's leftovers at `tree`, and a file outside it that a link points to. */
function sabotaged(asUid?: number): { scratch: string; tree: string; outside: string } {
  const scratch = mkdtempSync(join(tmpdir(), "a2a-rmtree-"));
  chmodSync(scratch, 0o755);
  const outside = join(scratch, "outside.txt");
  writeFileSync(outside, "keep me");
  const tree = join(scratch, "tree");
  const argv = ["python3", "-c", sabotageProgram(tree, outside)];
  if (asUid !== undefined) {
    chmodSync(scratch, 0o777); // the uid removes its tree from here
    mkdirSync(tree);
    execFileSync("chown", [`${asUid}:${asUid}`, tree]);
    execFileSync("setpriv", [
      `--reuid=${asUid}`,
      `--regid=${asUid}`,
      "--clear-groups",
      "/usr/bin/python3",
      ...argv.slice(1),
    ]);
  } else execFileSync(argv[0]!, argv.slice(1));
  return { scratch, tree, outside };
}

describe("removeTree", () => {
  test("a tree deeper than PATH_MAX with a FIFO, a socket, mode-000 directories and an outward link is removed; the link's target stays", async () => {
    const { scratch, tree, outside } = sabotaged();
    try {
      // What node's own removal does with it: the failure this routine exists for.
      await expect(
        import("node:fs/promises").then((fs) => fs.rm(tree, { recursive: true, force: true })),
      ).rejects.toThrow(/ENAMETOOLONG/);
      await removeTree(tree);
      expect(existsSync(tree)).toBe(false);
      expect(readFileSync(outside, "utf8")).toBe("keep me");
    } finally {
      execFileSync("rm", ["-rf", scratch]);
    }
  });

  test("a path that is not there is removed already; / is refused", async () => {
    await expect(removeTree(join(tmpdir(), "a2a-rmtree-never-there"))).resolves.toBeUndefined();
    await expect(removeTree("/")).rejects.toBeInstanceOf(TreeRemovalError);
  });

  test("a link given as the path is removed itself, never its target", async () => {
    const scratch = mkdtempSync(join(tmpdir(), "a2a-rmtree-"));
    try {
      mkdirSync(join(scratch, "target"));
      writeFileSync(join(scratch, "target", "f"), "x");
      execFileSync("ln", ["-s", join(scratch, "target"), join(scratch, "link")]);
      await removeTree(join(scratch, "link"));
      expect(existsSync(join(scratch, "link"))).toBe(false);
      expect(readFileSync(join(scratch, "target", "f"), "utf8")).toBe("x");
    } finally {
      rmSync(scratch, { recursive: true, force: true });
    }
  });

  test.skipIf(!isRoot || !hasSetpriv)(
    "on a host that is not root (our uid owns the tree, no DAC override), mode-000 directories are opened up and removed (needs root to switch uid)",
    () => {
      const { scratch, tree } = sabotaged(65534);
      try {
        const script = `import(${JSON.stringify(DIST)}).then(m => m.removeTree(${JSON.stringify(tree)})).then(() => console.log("removed"), e => { console.log(e.code, e.message); process.exit(1); })`;
        const out = execFileSync(
          "setpriv",
          ["--reuid=65534", "--regid=65534", "--clear-groups", process.execPath, "-e", script],
          {
            encoding: "utf8",
          },
        );
        expect(out.trim()).toBe("removed");
        expect(existsSync(tree)).toBe(false);
      } finally {
        execFileSync("rm", ["-rf", scratch]);
      }
    },
  );

  test.skipIf(!isRoot || !hasSetpriv)(
    "a tree it cannot remove (another uid's, no privilege) is a typed error naming what stays (needs root to switch uid)",
    () => {
      const scratch = mkdtempSync(join(tmpdir(), "a2a-rmtree-"));
      chmodSync(scratch, 0o755);
      try {
        const tree = join(scratch, "tree");
        mkdirSync(join(tree, "sub"), { recursive: true });
        writeFileSync(join(tree, "sub", "f"), "root's");
        chmodSync(tree, 0o777); // the parent is writable to nobody, the child directory is root's
        const script = `import(${JSON.stringify(DIST)}).then(m => m.removeTree(${JSON.stringify(tree)})).then(() => console.log("removed"), e => console.log(e.code, e.name))`;
        const out = execFileSync(
          "setpriv",
          ["--reuid=65534", "--regid=65534", "--clear-groups", process.execPath, "-e", script],
          {
            encoding: "utf8",
          },
        );
        expect(out.trim()).toBe("E_TREE_REMAINS TreeRemovalError");
        expect(existsSync(join(tree, "sub", "f"))).toBe(true);
      } finally {
        execFileSync("rm", ["-rf", scratch]);
      }
    },
  );

  test.skipIf(!isRoot || !hasUnshare)(
    "a mount left below the tree is detached and the tree removed (own mount namespace; needs root)",
    () => {
      const scratch = mkdtempSync(join(tmpdir(), "a2a-rmtree-"));
      try {
        const tree = join(scratch, "tree");
        mkdirSync(join(tree, "mnt"), { recursive: true });
        const script =
          `const { execFileSync } = require("node:child_process");` +
          `execFileSync("mount", ["-t", "tmpfs", "tmpfs", ${JSON.stringify(join(tree, "mnt"))}]);` +
          `require("node:fs").writeFileSync(${JSON.stringify(join(tree, "mnt", "busy"))}, "x");` +
          `const held = require("node:fs").openSync(${JSON.stringify(join(tree, "mnt", "busy"))}, "r");` +
          `import(${JSON.stringify(DIST)}).then(m => m.removeTree(${JSON.stringify(tree)})).then(() => console.log("removed", require("node:fs").existsSync(${JSON.stringify(tree)})), e => console.log(e.code, e.message))`;
        const out = execFileSync("unshare", ["-m", "--propagation", "private", process.execPath, "-e", script], {
          encoding: "utf8",
        });
        expect(out.trim()).toBe("removed false");
      } finally {
        execFileSync("rm", ["-rf", scratch]);
      }
    },
  );
});

describe("mountsWithin", () => {
  test("finds the mount points at or below the root, deepest first, decoding the kernel's escapes", () => {
    const info = [
      "22 1 0:21 / / rw - ext4 /dev/sda1 rw",
      "30 22 0:40 / /tmp/t rw - tmpfs tmpfs rw",
      "31 30 0:41 / /tmp/t/a\\040b/c rw - tmpfs tmpfs rw",
      "32 22 0:42 / /tmp/tt rw - tmpfs tmpfs rw",
    ].join("\n");
    expect(mountsWithin(info, "/tmp/t")).toEqual(["/tmp/t/a b/c", "/tmp/t"]);
    expect(mountsWithin(info, "/tmp/x")).toEqual([]);
  });
});
