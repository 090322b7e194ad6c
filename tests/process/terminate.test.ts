import { describe, expect, test } from "vitest";
import { Terminator } from "../../src/process/index.js";

/** A Terminator whose signals are recorded with their time, ms after creation. */
function recorder(graceMs: number, stopWork?: () => Promise<unknown>) {
  const sent: Array<{ sig: NodeJS.Signals; at: number }> = [];
  const t0 = Date.now();
  const term = new Terminator((sig) => sent.push({ sig, at: Date.now() - t0 }), graceMs, stopWork);
  return { term, sent };
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

describe("Terminator", () => {
  test("SIGTERM at once, SIGKILL after the grace, and the first reason is kept", async () => {
    const { term, sent } = recorder(100);
    term.terminate("timeout");
    term.terminate("cancel");
    expect(sent.map((s) => s.sig)).toEqual(["SIGTERM"]);
    await sleep(180);
    expect(sent.map((s) => s.sig)).toEqual(["SIGTERM", "SIGKILL"]);
    expect(sent[1]!.at).toBeGreaterThanOrEqual(90);
    expect(term.reason).toBe("timeout");
    expect(term.forced).toBe(true);
  });

  test("a grace of 0 sends SIGKILL only", () => {
    const { term, sent } = recorder(5_000);
    term.terminate("output", 0);
    expect(sent.map((s) => s.sig)).toEqual(["SIGKILL"]);
    expect(term.forced).toBe(true);
    expect(term.graceInEffect).toBe(0);
  });

  test("a child gone within the grace is never SIGKILLed", async () => {
    const { term, sent } = recorder(60);
    term.terminate("cancel");
    term.clear();
    await sleep(120);
    expect(sent.map((s) => s.sig)).toEqual(["SIGTERM"]);
    expect(term.forced).toBe(false);
  });

  test("stopWork runs first, the signals follow it, and its failure does not stop them", async () => {
    const order: string[] = [];
    const { term, sent } = recorder(0, async () => {
      order.push("stop-work");
      await sleep(50);
      throw new Error("engine gone");
    });
    term.terminate("cancel", 0);
    expect(sent).toEqual([]);
    await sleep(100);
    expect(order).toEqual(["stop-work"]);
    expect(sent.map((s) => s.sig)).toEqual(["SIGKILL"]);
  });

  test("no signal after the child is gone while stopWork was still running", async () => {
    const { term, sent } = recorder(0, () => sleep(40));
    term.terminate("timeout");
    term.clear();
    await sleep(80);
    expect(sent).toEqual([]);
    expect(term.reason).toBe("timeout");
  });
});
