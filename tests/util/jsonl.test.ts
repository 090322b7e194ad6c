import { describe, expect, test } from "vitest";
import { gzipSync } from "node:zlib";
import { parseJsonlLines, textOfMaybeGzip } from "../../src/util/jsonl.js";

describe("parseJsonlLines", () => {
  test("skips blank lines and keeps each value's 1-based line number", () => {
    expect(parseJsonlLines('{"a":1}\n\n  \n[2]\n"x"\n', "f.jsonl")).toEqual([
      { line: 1, value: { a: 1 } },
      { line: 4, value: [2] },
      { line: 5, value: "x" },
    ]);
  });
  test("names the file and line that is not JSON", () => {
    expect(() => parseJsonlLines('{"a":1}\n{"b":\n', "f.jsonl")).toThrow(/^f\.jsonl: line 2 is not JSON$/);
  });
});

describe("textOfMaybeGzip", () => {
  test("gunzips by magic bytes whatever the name, and passes plain text through", () => {
    expect(textOfMaybeGzip(gzipSync(Buffer.from("héllo")), "x.txt")).toBe("héllo");
    expect(textOfMaybeGzip(Buffer.from("plain"), "x.gz")).toBe("plain");
  });
  test("a truncated gzip file is an error naming the file", () => {
    const gz = gzipSync(Buffer.from("x".repeat(1000)));
    expect(() => textOfMaybeGzip(gz.subarray(0, 12), "cut.gz")).toThrow(/^cut\.gz: not a readable gzip file/);
  });
});
