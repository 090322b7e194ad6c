import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { execFileSync } from "node:child_process";
import { chmodSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { git } from "../../../src/benchmarks/swebench/git.js";
import { GIT_SHELL_FUNCTION, NO_BACKGROUND_GIT_ARGS } from "../../../src/benchmarks/swebench/git-background.js";
import { createCheckout } from "../../../src/benchmarks/swebench/checkout.js";
import { silentLogger } from "../../../src/util/logger.js";
import { historyRepo } from "./fixtures/history-repo.js";

let root: string;
let savedPath: string | undefined;
let log: string;
beforeAll(async () => {
  root = await mkdtemp(join(tmpdir(), "a2a-git-bg-"));
  // A `git` first on PATH that records each call's arguments, then runs git.
  const real = execFileSync("bash", ["-c", "command -v git"], { encoding: "utf8" }).trim();
  mkdirSync(join(root, "bin"));
  log = join(root, "calls.txt");
  writeFileSync(join(root, "bin", "git"), `#!/bin/bash\necho "$*" >> ${log}\nexec ${real} "$@"\n`);
  chmodSync(join(root, "bin", "git"), 0o755);
  savedPath = process.env["PATH"];
  process.env["PATH"] = `${join(root, "bin")}:${savedPath}`;
});
afterAll(async () => {
  process.env["PATH"] = savedPath;
  await rm(root, { recursive: true, force: true });
});

const calls = (): string[] => readFileSync(log, "utf8").trim().split("\n");
const SETTINGS = "-c gc.auto=0 -c gc.autoDetach=false -c maintenance.auto=false";

describe("git's background work is off for every git step the harness runs", () => {
  it("the settings: automatic gc (and its detached child) and automatic maintenance off", () => {
    expect(NO_BACKGROUND_GIT_ARGS.join(" ")).toBe(SETTINGS);
  });

  it("on the host: every call of git() carries them", async () => {
    writeFileSync(log, "");
    await git(root, ["--version"]);
    await git(root, ["var", "GIT_EDITOR"]);
    expect(calls()).toHaveLength(2);
    for (const call of calls()) expect(call).toContain(SETTINGS);
  });

  it("in an environment: the scripts' git function passes them on every call", () => {
    writeFileSync(log, "");
    execFileSync("bash", ["-c", `${GIT_SHELL_FUNCTION}\ngit --version >/dev/null\ngit var GIT_EDITOR >/dev/null`], {
      env: process.env,
    });
    expect(calls()).toEqual([`${SETTINGS} --version`, `${SETTINGS} var GIT_EDITOR`]);
  });

  it("a clone checkout (a repository the harness makes) has them in its config", async () => {
    const repo = historyRepo(join(root, "up"), { "a.py": "x = 1\n" });
    const checkout = createCheckout("clone", join(root, "trees"), silentLogger());
    const tree = await checkout.acquire(repo.dir, repo.base);
    try {
      const config = (key: string): string =>
        execFileSync("git", ["--git-dir", tree.gitDir, "config", key], { encoding: "utf8" }).trim();
      expect([config("gc.auto"), config("gc.autoDetach"), config("maintenance.auto")]).toEqual(["0", "false", "false"]);
    } finally {
      await checkout.close();
    }
  });
});
