import { describe, expect, it } from "vitest";
import {
  attributedStatus,
  attributeRow,
  attributeStatus,
  isHarnessFailure,
  keepVerdict,
  PARTICIPANT_BROKE_SANDBOX,
} from "../../src/runner/attribution.js";
import type { ItemResult } from "../../src/runner/benchmark.js";
import { aggregateHumanEval } from "../../src/benchmarks/humaneval/aggregate.js";
import { testRunOptions } from "../support/run-options.js";

const row = (extra: Partial<ItemResult> = {}): ItemResult => ({
  id: "t/0",
  status: "error",
  passed: false,
  elapsed_seconds: 1,
  ...extra,
});

describe("the rule of attribution", () => {
  it("leaves an item out of a rate (error) only when the harness proved the failure its own", () => {
    expect(isHarnessFailure("infrastructure_sandbox")).toBe(true);
    expect(isHarnessFailure("model_no_code")).toBe(false);
    expect(isHarnessFailure(undefined)).toBe(false);
    expect(attributedStatus("error", "infrastructure_checker")).toBe("error");
    expect(attributedStatus("error", "model_participant_error")).toBe("failed");
    expect(attributedStatus("error", undefined)).toBe("failed");
    expect(attributedStatus("passed", undefined)).toBe("passed");
    const ours = row({ failure_mode: "infrastructure_sandbox" });
    expect(attributeStatus(ours)).toBe(ours);
    expect(attributeStatus(row({ failure_mode: "model_agent_timeout" })).status).toBe("failed");
  });

  it("gives sandbox failures the participant's label, row and samples, once the sandbox was shown sound", () => {
    const r = row({
      failure_mode: "infrastructure_sandbox",
      samples: [
        { status: "error", failure_mode: "infrastructure_sandbox", executed: false },
        { status: "passed", failure_mode: null, executed: true },
        { status: "error", failure_mode: "infrastructure_checker", executed: true },
      ],
    });
    expect(attributeRow(r, false)).toBe(r);
    const theirs = attributeRow(r, true);
    expect(theirs).toMatchObject({ status: "failed", failure_mode: PARTICIPANT_BROKE_SANDBOX });
    expect(theirs["samples"]).toEqual([
      { status: "failed", failure_mode: PARTICIPANT_BROKE_SANDBOX, executed: false },
      { status: "passed", failure_mode: null, executed: true },
      { status: "error", failure_mode: "infrastructure_checker", executed: true },
    ]);
    // Counted as failures in the benchmark's own figures, never as our errors.
    const agg = aggregateHumanEval([{ ...theirs, num_correct: 1 }], testRunOptions({ benchmark: "humaneval" }));
    expect(agg).toMatchObject({ total: 3, passed: 1, failed: 1, errors: 1 });
    expect(agg["failure_modes"]).toMatchObject({ [PARTICIPANT_BROKE_SANDBOX]: 1 });
  });

  it("keeps a judged verdict whatever its clean-up does; the clean-up's failure is reported", async () => {
    const verdict = { status: "attack_success", score: 3 };
    const reported: string[] = [];
    const kept = await keepVerdict(
      verdict,
      () => Promise.reject(Object.assign(new Error("could not remove /x"), { code: "E_TREE_REMAINS" })),
      (e) => reported.push(`${(e as Error & { code?: string }).code}: ${e.message}`),
    );
    expect(kept).toBe(verdict);
    expect(kept).toEqual({ status: "attack_success", score: 3 });
    expect(reported).toEqual(["E_TREE_REMAINS: could not remove /x"]);
    expect(
      await keepVerdict(
        7,
        () => Promise.resolve(),
        () => reported.push("no"),
      ),
    ).toBe(7);
    expect(reported).toHaveLength(1);
  });
});
