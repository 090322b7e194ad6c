/**
 * The trusted checker, a real python3 process: what it records from the
 * reference, and how it judges answer lines (plain data only, strict parsing,
 * exact types), with no sandbox involved.
 */
import { afterAll, describe, expect, it } from "vitest";
import { spawnSync } from "node:child_process";
import { join } from "node:path";
import { packageRoot } from "../../../src/util/package-root.js";
import { CheckerError, HumanEvalChecker, type CheckCall } from "../../../src/benchmarks/humaneval/checker.js";
import type { HumanEvalProblem } from "../../../src/benchmarks/humaneval/problem.js";

const problem: HumanEvalProblem = {
  task_id: "T/0",
  prompt: 'def pair(x):\n    """(x, x * 2) as a tuple."""\n',
  canonical_solution: "    return (x, x * 2)\n",
  entry_point: "pair",
  test: [
    "import random",
    "def check(candidate):",
    "    assert candidate(1) == (1, 2)",
    "    n = random.randint(0, 10**6)",
    "    assert candidate(n) == (n, 2 * n)",
    "    assert candidate(x=-3) == (-3, -6)",
  ].join("\n"),
};

const checker = new HumanEvalChecker();
afterAll(() => checker.close());

/** Answer lines as the candidate's tail writes them. */
const lines = (...objs: unknown[]): string => objs.map((o) => JSON.stringify(o) + "\n").join("");
const int = (n: number | string) => ({ i: String(n) });
const tup = (...xs: unknown[]) => ({ t: xs });

async function recorded(): Promise<CheckCall[]> {
  return checker.record(problem);
}

describe("record", () => {
  it("keeps every call of check() in order, arguments encoded at call time, random seeded alike each time", async () => {
    const calls = await recorded();
    expect(calls).toHaveLength(3);
    expect(calls[0]).toEqual({ a: tup(int(1)), k: { d: [] } });
    expect(calls[2]).toEqual({ a: tup(), k: { d: [["x", int(-3)]] } });
    expect(await recorded()).toEqual(calls);
  });

  it("is our error when the canonical solution fails its own check", async () => {
    const broken = { ...problem, canonical_solution: "    return None\n" };
    await expect(checker.record(broken)).rejects.toThrow(/canonical solution fails its own check/);
    await expect(checker.record(broken)).rejects.toBeInstanceOf(CheckerError);
  });

  it("without a canonical solution, discovers the calls with a placeholder answer", async () => {
    const calls = await checker.record({ ...problem, canonical_solution: "" });
    expect(calls).toEqual(await recorded());
  });
});

describe("judge", () => {
  it("passes exact answers and fails a wrong one on the check's own assert", async () => {
    const calls = await recorded();
    const n = (calls[1]!.a as { t: Array<{ i: string }> }).t[0]!.i;
    const right = [tup(int(1), int(2)), tup(int(n), int(String(2 * Number(n)))), tup(int(-3), int(-6))];
    expect(await checker.judge(problem, calls, lines(...right.map((ok, i) => ({ i, ok }))))).toEqual({
      verdict: "pass",
    });
    const wrong = lines({ i: 0, ok: tup(int(1), int(3)) });
    expect(await checker.judge(problem, calls, wrong)).toMatchObject({ verdict: "wrong_answer", call: 0 });
  });

  it("keeps tuple, list, bool and int apart (a list is not the tuple the check expects)", async () => {
    const calls = await recorded();
    const asList = lines({ i: 0, ok: { l: [int(1), int(2)] } });
    expect(await checker.judge(problem, calls, asList)).toMatchObject({ verdict: "wrong_answer" });
    const bools = lines({ i: 0, ok: tup(true, int(2)) });
    // True == 1 in Python, as in the single program: the codec keeps the bool and == decides.
    expect(await checker.judge(problem, calls, bools)).toMatchObject({ verdict: "missing", call: 1 });
  });

  it("raises the candidate's exception in the check, with its type name", async () => {
    const calls = await recorded();
    const r = await checker.judge(problem, calls, lines({ i: 0, exc: ["ZeroDivisionError", "division by zero"] }));
    expect(r).toMatchObject({ verdict: "exception", exception: "ZeroDivisionError", call: 0 });
  });

  it("a missing answer stops the check: answers before a crash count, a cut-off last line does not", async () => {
    const calls = await recorded();
    const text = lines({ i: 0, ok: tup(int(1), int(2)) }) + '{"i":1,"ok":{"t":[';
    expect(await checker.judge(problem, calls, text)).toEqual({ verdict: "missing", call: 1, answered: 1 });
    expect(await checker.judge(problem, calls, "")).toEqual({ verdict: "missing", call: 0, answered: 0 });
  });

  it.each([
    ["not JSON", "passed\n"],
    ["out of order", lines({ i: 1, ok: null })],
    ["extra keys", lines({ i: 0, ok: null, expected: true })],
    ["a raw JSON number (untagged)", lines({ i: 0, ok: 3 })],
    ["an int that is not decimal", lines({ i: 0, ok: { i: "1e3" } })],
    ["two tags", lines({ i: 0, ok: { i: "1", t: [] } })],
    ["unknown tag (no objects cross)", lines({ i: 0, ok: { o: "__import__('os')" } })],
    ["an unhashable set element", lines({ i: 0, ok: { s: [{ l: [] }] } })],
    ["more answers than calls", lines(...[0, 1, 2, 3].map((i) => ({ i, ok: null })))],
  ])("a malformed answer channel (%s) is reported, never decoded", async (_what, text) => {
    expect(await checker.judge(problem, await recorded(), text)).toMatchObject({ verdict: "malformed" });
  });

  it("reports an entry point the candidate did not define", async () => {
    const r = await checker.judge(problem, await recorded(), lines({ interface: "entry point 'pair' is not defined" }));
    expect(r).toMatchObject({ verdict: "interface" });
  });

  it("a check that raises on an answer (not an assert) is the candidate's exception", async () => {
    const p = { ...problem, test: "def check(candidate):\n    assert candidate(1)[0] + 1 == 2\n" };
    const r = await checker.judge(p, await checker.record(p), lines({ i: 0, ok: "text" }));
    expect(r).toMatchObject({ verdict: "check_error", exception: "TypeError" });
  });

  it("reports new calls when the check's arguments differ from the recorded ones", async () => {
    const calls = await recorded();
    const r = await checker.judge(problem, calls.slice(0, 1), lines({ i: 0, ok: tup(int(1), int(2)) }));
    expect(r).toMatchObject({ verdict: "diverged", at: 1 });
    expect(r.verdict === "diverged" ? r.calls : []).toEqual(calls);
  });

  it("bounds a request: a check that never returns is our error, and the checker keeps serving", async () => {
    const slow = new HumanEvalChecker("python3", 300);
    try {
      const p = { ...problem, test: "def check(candidate):\n    while True:\n        pass\n" };
      await expect(slow.record(p)).rejects.toThrow(/timed out after 300 ms/);
      expect(await slow.record(problem)).toHaveLength(3);
    } finally {
      await slow.close();
    }
  });
});

describe("requests queued behind slow ones", () => {
  it("each gets its own time bound, counted from when it is sent (a slow judge does not void its neighbours)", async () => {
    // Bound 1 s (watchdog 6 s); seven requests of 0.9 s each, all made at once, then a quick one: 6.3 s in a row.
    const bounded = new HumanEvalChecker("python3", 1000);
    try {
      const slow = { ...problem, test: "import time\ndef check(candidate):\n    time.sleep(0.9)\n    candidate(1)\n" };
      const all = [...Array.from({ length: 7 }, () => bounded.record(slow)), bounded.record(problem)];
      const lengths = (await Promise.all(all)).map((calls) => calls.length);
      expect(lengths).toEqual([1, 1, 1, 1, 1, 1, 1, 3]);
    } finally {
      await bounded.close();
    }
  }, 30_000);
});

describe("the checker and Node's event loop (built dist)", () => {
  it("an idle checker does not keep a process alive, and record/close resolve with nothing else holding the loop", () => {
    const mod = join(packageRoot, "dist", "benchmarks", "humaneval", "checker.js");
    const script = [
      `const { HumanEvalChecker } = await import(${JSON.stringify(mod)});`,
      "const idle = new HumanEvalChecker(); idle.warmUp();",
      "const c = new HumanEvalChecker();",
      `const calls = await c.record(${JSON.stringify(problem)});`,
      "await c.close();",
      "console.log('calls', calls.length);",
    ].join("\n");
    const r = spawnSync(process.execPath, ["--input-type=module", "-e", script], { encoding: "utf8", timeout: 20_000 });
    expect(r.stderr).toBe("");
    expect(r.status).toBe(0);
    expect(r.stdout.trim()).toBe("calls 3");
  });
});
