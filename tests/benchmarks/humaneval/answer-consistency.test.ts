/** Comparing two rounds' answers as values: set and dict order do not count, a changed value does. */
import { describe, expect, it } from "vitest";
import { firstChangedAnswer } from "../../../src/benchmarks/humaneval/answer-consistency.js";

const line = (i: number, ok: unknown): string => JSON.stringify({ i, ok }) + "\n";

describe("firstChangedAnswer", () => {
  it("finds the first answer of the prefix whose value changed", () => {
    const a = line(0, { i: "1" }) + line(1, { i: "2" });
    const b = line(0, { i: "1" }) + line(1, { i: "3" });
    expect(firstChangedAnswer(a, b, 2)).toBe(1);
    expect(firstChangedAnswer(a, b, 1)).toBeNull();
  });

  it("ignores dict pair order, set element order and key order within a line", () => {
    const d1 =
      line(0, {
        d: [
          ["a", { i: "1" }],
          ["b", { i: "2" }],
        ],
      }) + line(1, { s: ["x", "y"] });
    const d2 = '{"ok":{"d":[["b",{"i":"2"}],["a",{"i":"1"}]]},"i":0}\n' + line(1, { s: ["y", "x"] });
    expect(firstChangedAnswer(d1, d2, 2)).toBeNull();
  });

  it("an exception is compared by its type (a message may carry an address); another type is a change", () => {
    const exc = (type: string, msg: string): string => JSON.stringify({ i: 0, exc: [type, msg] }) + "\n";
    expect(firstChangedAnswer(exc("ValueError", "at 0x7f01"), exc("ValueError", "at 0x7f02"), 1)).toBeNull();
    expect(firstChangedAnswer(exc("ValueError", "x"), exc("KeyError", "x"), 1)).toBe(0);
  });

  it("an answer missing in one round (a crash, a cut line) is not a change", () => {
    expect(firstChangedAnswer(line(0, { i: "1" }) + line(1, { i: "2" }), line(0, { i: "1" }) + '{"i":1', 2)).toBeNull();
  });
});
