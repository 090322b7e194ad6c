import { describe, expect, it } from "vitest";
import { getBenchmark, knownBenchmarks } from "../../src/benchmarks/index.js";
import { UsageError } from "../../src/util/errors.js";

describe("benchmark manager", () => {
  it("returns the humaneval plug-in", async () => {
    expect((await getBenchmark("humaneval")).name).toBe("humaneval");
    expect(knownBenchmarks()).toContain("humaneval");
  });
  it("rejects an unknown type with the list of known ones", async () => {
    await expect(getBenchmark("nope")).rejects.toBeInstanceOf(UsageError);
    await expect(getBenchmark("nope")).rejects.toThrow(
      `unknown benchmark "nope" (known: ${knownBenchmarks().join(", ")})`,
    );
    await expect(getBenchmark("toString")).rejects.toBeInstanceOf(UsageError);
  });
});
