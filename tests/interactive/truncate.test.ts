import { describe, expect, test } from "vitest";
import { codePointLength, elisionMarker, MAX_STREAM_CHARS, truncateStream } from "../../src/interactive/truncate.js";

describe("truncateStream", () => {
  test("keeps output of exactly 10,000 characters whole", () => {
    const text = "x".repeat(MAX_STREAM_CHARS);
    expect(truncateStream(text)).toEqual({ text, elidedChars: 0 });
  });

  test("cuts 10,001 characters to 5,000 head + marker + 5,000 tail, eliding 1", () => {
    const text = "h".repeat(5000) + "M" + "t".repeat(5000);
    const out = truncateStream(text);
    expect(out.elidedChars).toBe(1);
    expect(out.text).toBe(`${"h".repeat(5000)}\n${elisionMarker(1)}\n${"t".repeat(5000)}`);
    expect(out.text).not.toContain("M");
  });

  test("the marker names the elided count and advises a narrower command", () => {
    const out = truncateStream("a".repeat(25_000));
    expect(out.elidedChars).toBe(15_000);
    expect(out.text).toContain("15000 characters elided");
    expect(out.text).toMatch(/narrow the command/);
  });

  test("counts code points, not UTF-16 units: 10,000 emoji stay whole", () => {
    const text = "😀".repeat(MAX_STREAM_CHARS); // 20,000 UTF-16 units
    expect(text.length).toBe(2 * MAX_STREAM_CHARS);
    expect(truncateStream(text)).toEqual({ text, elidedChars: 0 });
  });

  test("never splits a surrogate pair at the head or the tail cut", () => {
    // An ASCII char first shifts the pairs so a cut by UTF-16 units would land inside one.
    const text = "a" + "😀".repeat(MAX_STREAM_CHARS + 10);
    const out = truncateStream(text);
    expect(out.elidedChars).toBe(11);
    const [head, tail] = out.text.split(/\n\[\.\.\. .*\.\.\.\]\n/);
    expect(codePointLength(head!)).toBe(5000);
    expect(codePointLength(tail!)).toBe(5000);
    expect(head).toBe("a" + "😀".repeat(4999));
    expect(tail).toBe("😀".repeat(5000));
    // No lone surrogate anywhere: a round trip through UTF-8 is lossless.
    expect(Buffer.from(out.text, "utf8").toString("utf8")).toBe(out.text);
  });

  test("a smaller limit gives the head the odd character", () => {
    const out = truncateStream("abcdefghij", 5);
    expect(out.elidedChars).toBe(5);
    expect(out.text.startsWith("abc\n")).toBe(true);
    expect(out.text.endsWith("\nij")).toBe(true);
  });
});
