/**
 * The on-disk cache of recorded calls: a second run reads what the first
 * recorded; a corrupt file, a file we would not have written (group- or
 * world-writable), a changed problem or another checker/dataset/interpreter
 * key all mean recording again, never an error.
 */
import { afterAll, describe, expect, it } from "vitest";
import { chmod, mkdtemp, readdir, rm, stat, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { CallsCache, defaultCallsCacheDir } from "../../../src/benchmarks/humaneval/calls-cache.js";
import type { CheckCall } from "../../../src/benchmarks/humaneval/checker.js";

const dirs: string[] = [];
afterAll(async () => {
  for (const d of dirs) await rm(d, { recursive: true, force: true });
});

async function freshDir(): Promise<string> {
  const d = await mkdtemp(join(tmpdir(), "he-calls-"));
  dirs.push(d);
  return join(d, "cache");
}

const problem = {
  task_id: "T/0",
  prompt: "def f(x):\n",
  canonical_solution: "    return x\n",
  test: "t",
  entry_point: "f",
};
const calls: CheckCall[] = [{ a: { t: [{ i: "1" }] }, k: { d: [] } }];
const key = (dir: string | null, over: Record<string, string> = {}) => ({
  dir,
  checker: "c".repeat(64),
  dataset: "d".repeat(64),
  python: "/usr/bin/python3",
  ...over,
});

/** Plan through a cache; returns the calls and how many records ran. */
async function planOnce(cache: CallsCache, p = problem): Promise<{ calls: CheckCall[]; recorded: number }> {
  let recorded = 0;
  const got = await cache.plan(p, async () => {
    recorded++;
    return calls;
  });
  return { calls: got, recorded };
}

async function warm(dir: string): Promise<string> {
  const first = new CallsCache(key(dir));
  expect((await planOnce(first)).recorded).toBe(1);
  await first.flush();
  const [file] = await readdir(dir);
  return join(dir, file!);
}

describe("HumanEval calls cache", () => {
  it("a second run reads the recorded calls; the directory is private", async () => {
    const dir = await freshDir();
    await warm(dir);
    expect((await stat(dir)).mode & 0o777).toBe(0o700);
    const second = await planOnce(new CallsCache(key(dir)));
    expect(second).toEqual({ calls, recorded: 0 });
  });

  it("records again when the problem, checker, dataset or interpreter differ", async () => {
    const dir = await freshDir();
    await warm(dir);
    expect((await planOnce(new CallsCache(key(dir)), { ...problem, test: "t2" })).recorded).toBe(1);
    for (const over of [{ checker: "e".repeat(64) }, { dataset: "e".repeat(64) }, { python: "/other/python3" }])
      expect((await planOnce(new CallsCache(key(dir, over)))).recorded).toBe(1);
  });

  it("a corrupt file or one writable by others is not trusted", async () => {
    const dir = await freshDir();
    const file = await warm(dir);
    await chmod(file, 0o666);
    expect((await planOnce(new CallsCache(key(dir)))).recorded).toBe(1);
    await writeFile(file, "{not json", { mode: 0o600 });
    await chmod(file, 0o600);
    expect((await planOnce(new CallsCache(key(dir)))).recorded).toBe(1);
  });

  it("off disables it; the default sits under the cache root", () => {
    expect(defaultCallsCacheDir({ A2A_BENCH_HUMANEVAL_CALLS_CACHE: "off" })).toBeNull();
    expect(defaultCallsCacheDir({ A2A_BENCH_CACHE_DIR: "/c" })).toBe(join("/c", "humaneval-calls"));
    expect(defaultCallsCacheDir({ XDG_CACHE_HOME: "/x" })).toBe(join("/x", "a2a-bench", "humaneval-calls"));
  });
});
