import { describe, expect, test } from "vitest";
import { ProcessOptionError, runChild, startChild } from "../../src/process/index.js";

const env = { PATH: process.env["PATH"] ?? "" };

describe("options are checked at the entry", () => {
  test.each([
    [{ file: "" }, /file must be a non-empty string/],
    [{ args: "-e 1" as unknown as string[] }, /args must be an array of strings/],
    [{ timeoutMs: Number.POSITIVE_INFINITY }, /timeoutMs must be a finite number of ms >= 0, got Infinity/],
    [{ graceMs: -1 }, /graceMs must be a finite number of ms >= 0, got -1/],
    [{ stdout: { tail: 1.5 } }, /stdout.tail must be a positive integer of bytes, got 1.5/],
    [{ stdout: "pipe" as const, stderr: "stdout" as const }, /cannot merge into a stdout the caller reads itself/],
  ])("%o is refused with a message naming it", (bad, message) => {
    const run = () => startChild({ file: process.execPath, args: ["-e", ""], env, ...bad });
    expect(run).toThrow(ProcessOptionError);
    expect(run).toThrow(message);
  });

  test("nothing is started for a refused option", () => {
    let err: unknown;
    try {
      void runChild({ file: process.execPath, args: [], env, graceMs: -5 });
    } catch (e) {
      err = e;
    }
    expect(err).toBeInstanceOf(ProcessOptionError);
    expect((err as ProcessOptionError).code).toBe("E_PROCESS_OPTION");
  });
});
