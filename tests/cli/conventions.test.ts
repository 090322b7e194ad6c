/**
 * The conventions every command shares, through the built CLI: --version,
 * "did you mean", negative numbers rejected by name, usage errors exit 2.
 */
import { describe, expect, test } from "vitest";
import { spawnSync } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { cliEntry, packageRoot } from "../../src/util/package-root.js";

const version = (JSON.parse(readFileSync(join(packageRoot, "package.json"), "utf8")) as { version: string }).version;

function cli(args: string[], cwd?: string) {
  return spawnSync(process.execPath, [cliEntry, ...args], {
    encoding: "utf8",
    cwd,
    env: { ...process.env, NO_COLOR: "1" },
  });
}

describe("a2a-bench CLI conventions (built dist)", () => {
  test("--version prints the package.json version, top level and after every command", () => {
    for (const args of [
      ["--version"],
      ["-V"],
      ["run", "--version"],
      ["smoke", "--version"],
      ["view", "--version"],
      ["validate-bundle", "--version"],
      ["green", "--version"],
      ["scenario", "--version"],
    ]) {
      const r = cli(args);
      expect(r.status, args.join(" ")).toBe(0);
      expect(r.stdout).toBe(`a2a-bench ${version}\n`);
    }
  });

  test("an unknown command suggests the closest one and exits 2", () => {
    const r = cli(["rn"]);
    expect(r.status).toBe(2);
    expect(r.stderr).toContain('unknown command "rn" (did you mean "run"?)');
  });

  test("an unknown flag suggests the closest one and exits 2", () => {
    const r = cli(["run", "humaneval", "--smaples", "3"]);
    expect(r.status).toBe(2);
    expect(r.stderr).toBe("a2a-bench run: unknown option --smaples (did you mean --samples?); see --help\n");
    const s = cli(["smoke", "--timout", "3"]);
    expect(s.status).toBe(2);
    expect(s.stderr).toContain("unknown option --timout (did you mean --timeout?)");
  });

  test("a negative number is parsed, then rejected naming the option", () => {
    const dir = mkdtempSync(join(tmpdir(), "a2a-conv-"));
    try {
      const r = cli(["run", "humaneval", "--per-task-timeout-seconds", "-1"], dir);
      expect(r.status).toBe(2);
      expect(r.stderr).toContain("--per-task-timeout-seconds must be a positive number, got -1");
      expect(r.stderr).not.toContain("ambiguous");
      const s = cli(["run", "humaneval", "--seed", "-4", "--samples", "0"], dir);
      expect(s.stderr).toContain("--seed must be a non-negative integer, got -4");
      expect(s.stderr).toContain("--samples must be a positive integer, got 0");
      const t = cli(["smoke", "--samples", "-3"], dir);
      expect(t.status).toBe(2);
      expect(t.stderr).toContain('--samples must be a positive integer, got "-3"');
      // Usage errors write nothing: no results/ directory appears.
      expect(() => readFileSync(join(dir, "results"))).toThrow(/ENOENT/);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
