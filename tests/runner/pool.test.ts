import { describe, expect, it } from "vitest";
import { runPool } from "../../src/runner/pool.js";

const sleep = (ms: number): Promise<void> => new Promise((r) => setTimeout(r, ms));

describe("runPool", () => {
  it("keeps at most `concurrency` in flight and runs every item", async () => {
    let inFlight = 0;
    let peak = 0;
    const seen: number[] = [];
    await runPool([1, 2, 3, 4, 5, 6, 7], 3, new AbortController().signal, async (x) => {
      inFlight++;
      peak = Math.max(peak, inFlight);
      await sleep(5);
      seen.push(x);
      inFlight--;
    });
    expect(peak).toBe(3);
    expect(seen.sort()).toEqual([1, 2, 3, 4, 5, 6, 7]);
  });

  it("on a worker's error starts no new item, lets the others finish, then throws that error", async () => {
    const started: number[] = [];
    const finished: number[] = [];
    const run = runPool([1, 2, 3, 4, 5, 6], 2, new AbortController().signal, async (x) => {
      started.push(x);
      if (x === 1) throw new Error("boom");
      await sleep(30);
      finished.push(x);
    });
    await expect(run).rejects.toThrow("boom");
    // Item 2 was in flight when 1 failed: it finished before runPool returned; nothing after it started.
    expect(started).toEqual([1, 2]);
    expect(finished).toEqual([2]);
  });

  it("stops starting items once the signal is aborted", async () => {
    const controller = new AbortController();
    const started: number[] = [];
    await runPool([1, 2, 3, 4], 1, controller.signal, async (x) => {
      started.push(x);
      if (x === 2) controller.abort();
    });
    expect(started).toEqual([1, 2]);
  });
});
