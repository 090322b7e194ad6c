/**
 * PATH's python3 resolved to its real binary and remembered across runs: a shim
 * on PATH is started once, later resolutions read the cache; what a shim chooses
 * by (a version file in the working directory), a changed binary or a corrupt
 * cache file start it again.
 */
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { chmodSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync, existsSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { findOnPath, hostPythonCachePath, isElf, resolveHostPython } from "../../../src/sandbox/local/host-python.js";

const REAL = findOnPath("python3", { PATH: "/usr/bin:/bin" });

let dir: string;
let shimDir: string;
let starts: string;
let cachePath: string;
let env: NodeJS.ProcessEnv;

beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), "host-python-"));
  shimDir = join(dir, "shims");
  mkdirSync(shimDir);
  starts = join(dir, "starts");
  // A version manager's shim: a script that picks the interpreter and execs it (counting its starts).
  writeFileSync(join(shimDir, "python3"), `#!/bin/sh\necho x >> '${starts}'\nexec '${REAL}' "$@"\n`);
  chmodSync(join(shimDir, "python3"), 0o755);
  cachePath = join(dir, "cache", "host-python.json");
  env = { PATH: `${shimDir}:/usr/bin:/bin`, HOME: dir };
});
afterEach(() => rmSync(dir, { recursive: true, force: true }));

const shimStarts = (): number => (existsSync(starts) ? readFileSync(starts, "utf8").split("\n").length - 1 : 0);

describe.skipIf(REAL === null)("resolveHostPython", () => {
  it("resolves a shim to the real ELF binary once, then answers from the cache without starting anything", async () => {
    const work = join(dir, "work");
    mkdirSync(work);
    const first = await resolveHostPython({ env, cwd: work, cachePath });
    expect(shimStarts()).toBe(1);
    expect(first.python).not.toBe(join(shimDir, "python3"));
    expect(isElf(first.python)).toBe(true);
    expect(first.version).toMatch(/^3\.\d+/);
    expect(first.venv).toBe(false);
    expect(first.pythonPrefixes.length).toBeGreaterThan(0);
    const again = await resolveHostPython({ env, cwd: work, cachePath });
    expect(again).toEqual(first);
    expect(shimStarts()).toBe(1);
  });

  it("asks the shim again when what it chooses by changes (a version file, a variable)", async () => {
    const work = join(dir, "work");
    mkdirSync(work);
    await resolveHostPython({ env, cwd: work, cachePath });
    writeFileSync(join(work, ".python-version"), "system\n");
    await resolveHostPython({ env, cwd: work, cachePath });
    expect(shimStarts()).toBe(2);
    await resolveHostPython({ env: { ...env, PYENV_VERSION: "3.99" }, cwd: work, cachePath });
    expect(shimStarts()).toBe(3);
    // Each answer is remembered under its own key.
    await resolveHostPython({ env, cwd: work, cachePath });
    expect(shimStarts()).toBe(3);
  });

  it("probes again when the remembered binary is not the one probed, or the cache file is corrupt", async () => {
    await resolveHostPython({ env, cwd: dir, cachePath });
    const file = JSON.parse(readFileSync(cachePath, "utf8")) as { entries: Record<string, { mtimeMs: number }> };
    for (const e of Object.values(file.entries)) e.mtimeMs -= 1000;
    writeFileSync(cachePath, JSON.stringify(file));
    await resolveHostPython({ env, cwd: dir, cachePath });
    expect(shimStarts()).toBe(2);
    writeFileSync(cachePath, "{not json");
    const r = await resolveHostPython({ env, cwd: dir, cachePath });
    expect(shimStarts()).toBe(3);
    expect(isElf(r.python)).toBe(true);
  });

  it("a remembered path that is not an ELF binary is never used", async () => {
    await resolveHostPython({ env, cwd: dir, cachePath });
    const file = JSON.parse(readFileSync(cachePath, "utf8")) as { entries: Record<string, { python: string }> };
    for (const e of Object.values(file.entries)) e.python = join(shimDir, "python3");
    writeFileSync(cachePath, JSON.stringify(file));
    const r = await resolveHostPython({ env, cwd: dir, cachePath });
    expect(shimStarts()).toBe(2);
    expect(isElf(r.python)).toBe(true);
  });

  it("without a cache it probes every time; without python3 on PATH it rejects with E_SANDBOX_UNAVAILABLE", async () => {
    await resolveHostPython({ env, cwd: dir, cachePath: null });
    await resolveHostPython({ env, cwd: dir, cachePath: null });
    expect(shimStarts()).toBe(2);
    await expect(resolveHostPython({ env: { PATH: join(dir, "empty") }, cachePath: null })).rejects.toMatchObject({
      code: "E_SANDBOX_UNAVAILABLE",
    });
  });

  it("the cache lives in the user's cache directory unless turned off", () => {
    expect(hostPythonCachePath({ HOME: "/h" })).toMatch(/\/h\/\.cache\/a2a-bench\/host-python\.json$/);
    expect(hostPythonCachePath({ XDG_CACHE_HOME: "/x" })).toBe("/x/a2a-bench/host-python.json");
    expect(hostPythonCachePath({ A2A_BENCH_CACHE_DIR: "/c" })).toBe("/c/host-python.json");
    expect(hostPythonCachePath({ A2A_BENCH_PYTHON_CACHE: "off" })).toBeNull();
  });
});
