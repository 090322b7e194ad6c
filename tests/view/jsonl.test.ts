import { describe, expect, test } from "vitest";
import { parseJsonl } from "../../src/view/jsonl.js";

describe("parseJsonl (files still being appended to)", () => {
  test("an unfinished last line is skipped and flagged, not an error", () => {
    const r = parseJsonl('{"a":1}\n{"b":2}\n{"c":');
    expect(r).toEqual({ records: [{ a: 1 }, { b: 2 }], badLines: 0, partialTail: true });
  });

  test("a complete last record without its newline is kept", () => {
    expect(parseJsonl('{"a":1}\n{"b":2}').records).toEqual([{ a: 1 }, { b: 2 }]);
  });

  test("a bad complete line is counted; blank lines are ignored", () => {
    expect(parseJsonl('{"a":1}\nnot json\n\n{"b":2}\n')).toEqual({
      records: [{ a: 1 }, { b: 2 }],
      badLines: 1,
      partialTail: false,
    });
  });

  test("empty text", () => {
    expect(parseJsonl("")).toEqual({ records: [], badLines: 0, partialTail: false });
  });
});
