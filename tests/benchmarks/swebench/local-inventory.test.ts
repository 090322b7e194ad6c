import { describe, expect, it } from "vitest";
import {
  RUNNER_PROBE_MIN_TIMEOUT_MS,
  STATIC_PROBE_TIMEOUT_MS,
  localInventory,
  runnerProbeTimeoutMs,
} from "../../../src/benchmarks/swebench/local-inventory.js";
import type { ExecOutcome, ExecRequest, Sandbox } from "../../../src/sandbox/types.js";

/** A sandbox that runs nothing and records each request's limit. */
function recordingSandbox(limits: number[]): Sandbox {
  const exec = async (req: ExecRequest): Promise<ExecOutcome> => {
    limits.push(req.timeoutMs);
    return {
      ...{ exitCode: 0, signal: null, timedOut: false, isCanceled: false, outputLimitExceeded: false },
      ...{ durationMs: 1, stdoutTail: "", stderrTail: "" },
    };
  };
  return {
    backend: "local",
    isolation: "none",
    warnings: [],
    capabilities: new Set(["host-workdir"]),
    exec,
    execMany: (reqs) => Promise.all(reqs.map(exec)),
    close: async () => {},
  };
}

describe("the host path's test-run inventory: each probe's own limit", () => {
  const inventoryLimits = async (testTimeoutMs: number): Promise<number[]> => {
    const limits: number[] = [];
    await localInventory({
      sandbox: recordingSandbox(limits),
      workDir: "/nonexistent",
      tests: ["tests/test_x.py"],
      env: {},
      runner: true,
      timeoutMs: testTimeoutMs,
      signal: new AbortController().signal,
    });
    return limits;
  };

  it("a short test limit never cuts the runner probe below its floor (as in containers): 3 s tests → 60 s probe", async () => {
    expect(await inventoryLimits(3_000)).toEqual([STATIC_PROBE_TIMEOUT_MS, RUNNER_PROBE_MIN_TIMEOUT_MS]);
    expect(runnerProbeTimeoutMs(3_000)).toBe(RUNNER_PROBE_MIN_TIMEOUT_MS);
  });

  it("the runner probe gets the test run's own limit when it is longer (SWE-bench's default, 1,800 s)", async () => {
    expect(await inventoryLimits(1_800_000)).toEqual([STATIC_PROBE_TIMEOUT_MS, 1_800_000]);
  });
});
