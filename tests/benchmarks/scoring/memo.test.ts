import { describe, expect, it } from "vitest";
import { memoByKey } from "../../../src/benchmarks/scoring/memo.js";

describe("memoByKey", () => {
  it("calls the loader once per key; concurrent and later callers share its promise, a rejection too", async () => {
    const calls: string[] = [];
    const load = memoByKey(async (key: string) => {
      calls.push(key);
      if (key === "bad") throw new Error(`no ${key}`);
      return key.toUpperCase();
    });
    const [a, b] = await Promise.all([load("a"), load("a")]);
    expect([a, b, await load("a"), await load("b")]).toEqual(["A", "A", "A", "B"]);
    await expect(load("bad")).rejects.toThrow("no bad");
    await expect(load("bad")).rejects.toThrow("no bad");
    expect(calls).toEqual(["a", "b", "bad"]);
  });
});
