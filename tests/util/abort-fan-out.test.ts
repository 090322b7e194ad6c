import { describe, expect, it } from "vitest";
import { getEventListeners } from "node:events";
import { followAbort } from "../../src/util/abort-fan-out.js";

describe("followAbort", () => {
  it("puts one listener on the signal for any number of followers, and removes it with the last", () => {
    const ctl = new AbortController();
    const stops = Array.from({ length: 30 }, () => followAbort(ctl.signal, () => {}));
    expect(getEventListeners(ctl.signal, "abort")).toHaveLength(1);
    for (const stop of stops.slice(1)) stop();
    expect(getEventListeners(ctl.signal, "abort")).toHaveLength(1);
    stops[0]!();
    expect(getEventListeners(ctl.signal, "abort")).toHaveLength(0);
    // A new follower after that gets a listener again.
    const again = followAbort(ctl.signal, () => {});
    expect(getEventListeners(ctl.signal, "abort")).toHaveLength(1);
    again();
  });

  it("calls the followers still there, once each, in the order they came; not the ones that stopped", () => {
    const ctl = new AbortController();
    const calls: number[] = [];
    const cb = (i: number) => () => void calls.push(i);
    const stops = [0, 1, 2, 3].map((i) => followAbort(ctl.signal, cb(i)));
    stops[2]!();
    ctl.abort();
    ctl.abort();
    expect(calls).toEqual([0, 1, 3]);
    for (const stop of stops) stop(); // harmless after the abort
    expect(getEventListeners(ctl.signal, "abort")).toHaveLength(0);
  });

  it("the same callback following twice is called twice", () => {
    const ctl = new AbortController();
    let n = 0;
    const cb = (): void => void n++;
    followAbort(ctl.signal, cb);
    followAbort(ctl.signal, cb);
    ctl.abort();
    expect(n).toBe(2);
  });

  it("an aborted signal calls the follower at once; no signal never does", () => {
    const ctl = new AbortController();
    ctl.abort();
    let n = 0;
    followAbort(ctl.signal, () => void n++)();
    expect(n).toBe(1);
    expect(getEventListeners(ctl.signal, "abort")).toHaveLength(0);
    followAbort(undefined, () => void n++)();
    expect(n).toBe(1);
  });

  it("a throwing follower does not keep the others from being called", async () => {
    const ctl = new AbortController();
    const calls: string[] = [];
    followAbort(ctl.signal, () => {
      throw new Error("follower failed");
    });
    followAbort(ctl.signal, () => void calls.push("second"));
    const reported = new Promise<unknown>((resolve) => {
      const handler = (err: unknown): void => resolve(err);
      process.once("uncaughtException", handler);
    });
    ctl.abort();
    expect(calls).toEqual(["second"]);
    expect(await reported).toMatchObject({ message: "follower failed" });
  });
});
