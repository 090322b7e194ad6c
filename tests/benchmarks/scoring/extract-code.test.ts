import { describe, expect, it } from "vitest";
import { dedent, extractCode, fitBody, findFencedBlocks } from "../../../src/benchmarks/scoring/extract-code.js";

const prompt = `from typing import List


def add(xs: List[int]) -> int:
    """Sum the list."""
`;
const opts = { entryPoint: "add", prompt };

describe("extractCode", () => {
  it("takes a python fence with prose around it, whole function", () => {
    const r = extractCode(
      "Sure! Here it is:\n\n```python\ndef add(xs):\n    return sum(xs)\n```\n\nThis sums the list.",
      opts,
    );
    expect(r).toEqual({ completion: "\ndef add(xs):\n    return sum(xs)\n", kind: "full", source: "fence" });
  });

  it("prefers the python block that defines the entry point over other blocks", () => {
    const reply =
      "Run:\n```bash\npython x.py\n```\nHelper:\n```python\nimport math\n```\nAnswer:\n```python\ndef add(xs):\n    return sum(xs)\n```";
    expect(extractCode(reply, opts).completion).toContain("return sum(xs)");
    expect(extractCode(reply, opts).kind).toBe("full");
  });

  it("matches the entry point's def exactly: not a longer name, with async and odd spacing", () => {
    const longer =
      "```python\ndef adder(xs):\n    return 0\n```\n```python\n    async  def add (xs):\n        return sum(xs)\n```";
    expect(extractCode(longer, opts).completion).toContain("return sum(xs)");
    const asyncName = "```python\ndef asyncadd(xs):\n    return 0\n```\n```python\ndef add(xs):\n    return 1\n```";
    expect(extractCode(asyncName, opts).completion).toContain("return 1");
  });

  it("accepts an untagged fence and a ~~~ fence", () => {
    expect(extractCode("```\n    return sum(xs)\n```", opts)).toMatchObject({
      kind: "body",
      completion: "    return sum(xs)\n",
    });
    expect(extractCode("~~~py\n    return sum(xs)\n~~~", opts)).toMatchObject({
      kind: "body",
      completion: "    return sum(xs)\n",
    });
  });

  it("reads an unterminated fence to the end", () => {
    expect(extractCode("```python\ndef add(xs):\n    return sum(xs)\n", opts).completion).toBe(
      "\ndef add(xs):\n    return sum(xs)\n",
    );
  });

  it("keeps an indented body byte for byte (gold answers)", () => {
    const body = "    total = 0\n    for x in xs:\n        total += x\n    return total\n";
    expect(extractCode("```python\n" + body + "```", opts).completion).toBe(body);
    expect(extractCode(body, opts).completion).toBe(body);
  });

  it("indents a body written at column 0", () => {
    const r = extractCode("```python\ntotal = 0\nfor x in xs:\n    total += x\nreturn total\n```", opts);
    expect(r.kind).toBe("body");
    expect(r.completion).toBe("    total = 0\n    for x in xs:\n        total += x\n    return total\n");
  });

  it("restores a first line whose indent was lost", () => {
    expect(fitBody("total = sum(xs)\n    return total")).toBe("    total = sum(xs)\n    return total");
  });

  it("drops an echoed prompt and keeps what follows as the body", () => {
    const r = extractCode("```python\n" + prompt + "    return sum(xs)\n```", opts);
    expect(r).toMatchObject({ kind: "body", completion: "    return sum(xs)\n" });
  });

  it("keeps helper functions and imports of a whole answer", () => {
    const r = extractCode(
      "```python\nimport math\n\ndef _h(x):\n    return x\n\ndef add(xs):\n    return sum(_h(x) for x in xs)\n```",
      opts,
    );
    expect(r.kind).toBe("full");
    expect(r.completion).toContain("import math");
    expect(r.completion).toContain("def _h(x)");
  });

  it("strips prose lines around unfenced code", () => {
    const r = extractCode("Here is my solution:\ndef add(xs):\n    return sum(xs)\nThis works for all inputs.", opts);
    expect(r).toEqual({ completion: "\ndef add(xs):\n    return sum(xs)\n", kind: "full", source: "raw" });
  });

  it("dedents an indented whole function", () => {
    const r = extractCode("```python\n    def add(xs):\n        return sum(xs)\n```", opts);
    expect(r.completion).toBe("\ndef add(xs):\n    return sum(xs)\n");
  });

  it("normalises CRLF line ends", () => {
    expect(extractCode("```python\r\ndef add(xs):\r\n    return sum(xs)\r\n```\r\n", opts).completion).toBe(
      "\ndef add(xs):\n    return sum(xs)\n",
    );
  });

  it("reports no code for an empty reply, an empty fence, or prose only", () => {
    expect(extractCode("", opts).kind).toBe("none");
    expect(extractCode("```python\n```", opts).kind).toBe("none");
    expect(extractCode("I cannot help with that.", opts).kind).toBe("none");
  });

  it("treats a different function name as a body candidate, not the entry point", () => {
    const r = extractCode("```python\ndef other(xs):\n    return 1\n```", opts);
    expect(r.kind).toBe("body");
  });
});

describe("helpers", () => {
  it("findFencedBlocks lists tags and bodies in order", () => {
    expect(findFencedBlocks("```js\na\n```\ntext\n```Python\nb\n```")).toEqual([
      { lang: "js", body: "a" },
      { lang: "python", body: "b" },
    ]);
  });
  it("dedent removes the common indentation, blank lines ignored", () => {
    expect(dedent("    a\n\n      b")).toBe("a\n\n  b");
  });
});
