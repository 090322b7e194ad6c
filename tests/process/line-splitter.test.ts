import { describe, expect, test } from "vitest";
import { PassThrough } from "node:stream";
import { LineSplitter, splitLines } from "../../src/process/index.js";

describe("LineSplitter", () => {
  test("splits on newlines, drops a CR before them, flushes the final unterminated line", () => {
    const lines: string[] = [];
    const s = new LineSplitter((l) => lines.push(l));
    s.push("a\r\nb");
    s.push("c\n\nd");
    s.end();
    expect(lines).toEqual(["a", "bc", "", "d"]);
  });

  test("a line over the cap is cut with a marker and the rest of it is dropped until the next newline", () => {
    const lines: string[] = [];
    const s = new LineSplitter((l) => lines.push(l), 5);
    s.push("0123456789");
    s.push("more of the same line\nnext\n");
    s.end();
    expect(lines).toEqual(["01234 [line truncated]", "next"]);
  });

  test("a multi-byte character split across chunks is decoded whole", () => {
    const lines: string[] = [];
    const s = new LineSplitter((l) => lines.push(l));
    const bytes = Buffer.from("é€\n");
    s.push(bytes.subarray(0, 1));
    s.push(bytes.subarray(1, 3));
    s.push(bytes.subarray(3));
    expect(lines).toEqual(["é€"]);
  });

  test("splitLines resolves when its stream ends, after the last line", async () => {
    const stream = new PassThrough();
    const lines: string[] = [];
    const done = splitLines(stream, (l) => lines.push(l));
    stream.end("x\ny");
    await done;
    expect(lines).toEqual(["x", "y"]);
  });
});
