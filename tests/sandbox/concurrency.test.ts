/**
 * Sandbox jobs under one Limiter, all following one shared stop signal (a run's):
 * no MaxListenersExceededWarning however many are queued, and an abort still
 * cancels the running jobs and keeps the queued ones from starting.
 */
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { getEventListeners } from "node:events";
import { Limiter, runCancellable } from "../../src/sandbox/concurrency.js";

let warnings: Error[];
const onWarning = (w: Error): void => void warnings.push(w);

beforeEach(() => {
  warnings = [];
  process.on("warning", onWarning);
});
afterEach(() => {
  process.off("warning", onWarning);
});

/** process.emitWarning reports on the next tick: let it. */
const settle = (): Promise<void> => new Promise((r) => setImmediate(r));

type Result = "done" | "aborted while running" | "canceled";

/** `count` jobs of `limit` at a time on `signal`; each runs until released or aborted. */
function startJobs(count: number, limit: number, signal: AbortSignal) {
  const limiter = new Limiter(limit);
  const running = new Set<AbortController>();
  const release: Array<() => void> = [];
  let started = 0;
  const results = Array.from({ length: count }, () =>
    runCancellable<Result>(
      limiter,
      running,
      signal,
      () => "canceled",
      (s) => {
        started++;
        return new Promise<Result>((resolve) => {
          release.push(() => resolve("done"));
          s.addEventListener("abort", () => resolve("aborted while running"), { once: true });
        });
      },
    ),
  );
  return { results: Promise.all(results), running, release, started: () => started };
}

describe("runCancellable on one shared signal", () => {
  it.each([10, 11, 50, 500])("%i jobs queued at once: one abort listener, no listener warning", async (count) => {
    const ctl = new AbortController();
    const jobs = startJobs(count, 4, ctl.signal);
    await settle();
    expect(jobs.started()).toBe(Math.min(4, count));
    expect(getEventListeners(ctl.signal, "abort")).toHaveLength(1);
    while (jobs.release.length > 0) {
      for (const r of jobs.release.splice(0)) r();
      await settle();
    }
    expect(await jobs.results).toEqual(Array(count).fill("done"));
    await settle();
    expect(warnings.filter((w) => w.name === "MaxListenersExceededWarning")).toEqual([]);
    // The last job gone, the signal is left as found.
    expect(getEventListeners(ctl.signal, "abort")).toHaveLength(0);
    expect(jobs.running.size).toBe(0);
  });

  it("an abort cancels the running jobs and the queued ones never start", async () => {
    const ctl = new AbortController();
    const jobs = startJobs(40, 3, ctl.signal);
    await settle();
    jobs.release.shift()!(); // one finishes before the stop
    await settle();
    expect(jobs.started()).toBe(4);
    ctl.abort();
    const results = await jobs.results;
    expect(results.filter((r) => r === "done")).toHaveLength(1);
    expect(results.filter((r) => r === "aborted while running")).toHaveLength(3);
    expect(results.filter((r) => r === "canceled")).toHaveLength(36);
    expect(jobs.started()).toBe(4);
    expect(jobs.running.size).toBe(0);
    await settle();
    expect(warnings.filter((w) => w.name === "MaxListenersExceededWarning")).toEqual([]);
  });

  it("a signal aborted before the job is queued: the job does not start", async () => {
    const ctl = new AbortController();
    ctl.abort();
    const jobs = startJobs(20, 2, ctl.signal);
    expect(await jobs.results).toEqual(Array(20).fill("canceled"));
    expect(jobs.started()).toBe(0);
    expect(getEventListeners(ctl.signal, "abort")).toHaveLength(0);
  });

  it("jobs on different signals are cancelled each by its own", async () => {
    const a = new AbortController();
    const b = new AbortController();
    const limiter = new Limiter(2);
    const running = new Set<AbortController>();
    const job = (s: AbortSignal): Promise<string> =>
      new Promise((resolve) => s.addEventListener("abort", () => resolve("aborted"), { once: true }));
    const onA = runCancellable(limiter, running, a.signal, () => "canceled", job);
    const onB = runCancellable(limiter, running, b.signal, () => "canceled", job);
    a.abort();
    expect(await onA).toBe("aborted");
    expect(running.size).toBe(1);
    b.abort();
    expect(await onB).toBe("aborted");
  });
});
