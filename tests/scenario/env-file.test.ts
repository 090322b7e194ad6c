import { describe, expect, it } from "vitest";
import { maskValue, parseEnvFile } from "../../src/scenario/env-file.js";

describe("env file", () => {
  it("parses KEY=VALUE with comments, export and quotes", () => {
    expect(parseEnvFile(`# comment\nexport A=1\nB = "two words"\nC='x#y'\nD=plain # trailing\n\n`)).toEqual({
      A: "1",
      B: "two words",
      C: "x#y",
      D: "plain",
    });
  });
  it("names the line of a malformed entry", () => {
    expect(() => parseEnvFile("A=1\nnot a pair\n", "my.env")).toThrow("my.env:2: expected KEY=VALUE");
  });
  it("masks values without revealing short secrets or lengths", () => {
    expect(maskValue("sk-verylongsecretvalue")).toBe("sk****");
    expect(maskValue("short")).toBe("****");
    expect(maskValue("")).toBe("(empty)");
  });
});
