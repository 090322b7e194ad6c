import { describe, expect, test } from "vitest";
import { OutputTail } from "../../src/process/index.js";

describe("OutputTail", () => {
  test("keeps exactly the last cap bytes across chunks and counts them all", () => {
    const t = new OutputTail(6);
    expect(t.push(Buffer.from("abc"))).toBe(false);
    expect(t.push(Buffer.from("def"))).toBe(false);
    expect(t.push(Buffer.from("gh"))).toBe(true);
    expect(t.text()).toBe("cdefgh");
    expect(t.total).toBe(8);
  });

  test("one chunk larger than the cap is cut to its end", () => {
    const t = new OutputTail(3);
    t.push(Buffer.from("0123456789"));
    expect(t.text()).toBe("789");
  });

  test("memory stays bounded: many small chunks keep about the cap", () => {
    const t = new OutputTail(1024);
    for (let i = 0; i < 100_000; i++) t.push(Buffer.from("x"));
    expect(t.total).toBe(100_000);
    expect(t.text().length).toBe(1024);
    // The retained chunks never hold much more than the cap (one chunk's worth of slack).
    expect((t as unknown as { kept: number }).kept).toBeLessThanOrEqual(1025);
  });
});
