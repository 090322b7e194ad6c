import { readFileSync } from "node:fs";
import { resolve } from "node:path";
import { describe, expect, it } from "vitest";
import {
  addTraceabilityUsage,
  traceabilityUsageFromMetadata,
  usageOfTrace,
} from "../../../src/a2a/shared/traceability.js";

const task = JSON.parse(
  readFileSync(resolve(import.meta.dirname, "../../fixtures/traceability/task-with-trace.json"), "utf8"),
) as { status: { message: { metadata: Record<string, unknown> } } };

describe("Traceability extension usage", () => {
  it("sums the top-level steps of a trace in a status message's metadata (children and nested traces are their parents')", () => {
    expect(traceabilityUsageFromMetadata(task.status.message.metadata)).toEqual({
      source: "traceability",
      total_tokens: 420,
      cost: 10,
      steps: 2,
    });
  });

  it("reads camelCase and the earlier spec's key", () => {
    const metadata = {
      "github.com/a2aproject/a2a-samples/samples/extensions/timestamp/v1/timestamp": {
        traceId: "t",
        steps: [
          { stepId: "a", totalTokens: 5 },
          { stepId: "b", parentStepId: "a", totalTokens: 9 },
        ],
      },
    };
    expect(traceabilityUsageFromMetadata(metadata)).toEqual({ source: "traceability", total_tokens: 5, steps: 1 });
  });

  it("ignores what is not a trace and counts malformed numbers as nothing", () => {
    expect(traceabilityUsageFromMetadata(undefined)).toBeUndefined();
    expect(traceabilityUsageFromMetadata({ other: { steps: [] } })).toBeUndefined();
    expect(usageOfTrace({ trace_id: "t" })).toBeUndefined();
    expect(usageOfTrace({ steps: [{ total_tokens: -3, cost: 1.5 }, "x", { total_tokens: 2 }] })).toEqual({
      source: "traceability",
      total_tokens: 2,
      steps: 2,
    });
  });

  it("adds two reports", () => {
    const a = { source: "traceability" as const, total_tokens: 1, steps: 1 };
    const b = { source: "traceability" as const, total_tokens: 2, cost: 4, steps: 3 };
    expect(addTraceabilityUsage(a, b)).toEqual({ source: "traceability", total_tokens: 3, cost: 4, steps: 4 });
    expect(addTraceabilityUsage(undefined, undefined)).toBeUndefined();
  });
});
