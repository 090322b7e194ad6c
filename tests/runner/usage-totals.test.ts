import { describe, expect, it } from "vitest";
import { UsageTotals } from "../../src/runner/usage-totals.js";
import { tracedParticipant } from "../../src/a2a/shared/traceability.js";
import type { Participant } from "../../src/a2a/shared/participant.js";

const measured = (cost: number, cap?: "item" | "run") => ({
  source: "measured" as const,
  prompt_tokens: 10,
  completion_tokens: 5,
  total_tokens: 15,
  requests: 1,
  requests_without_usage: 0,
  refused_requests: cap ? 1 : 0,
  cost_usd: cost,
  ...(cap ? { cap_hit: cap } : {}),
});

describe("usage by source", () => {
  it("sums measured, self-reported and traceability numbers apart, each with its source", () => {
    const totals = new UsageTotals();
    const row = { status: "passed", passed: true, elapsed_seconds: 1 };
    totals.add({ id: "a", ...row, measured_usage: measured(0.1) });
    totals.add({
      id: "b",
      ...row,
      measured_usage: measured(0.2, "item"),
      usage: { prompt_tokens: 1, completion_tokens: 2, total_tokens: 3 },
      usage_source: "self_reported",
      traceability_usage: { source: "traceability", total_tokens: 7, cost: 2, steps: 1 },
    });
    totals.add({ id: "c", ...row });
    expect(totals.aggregate()).toEqual({
      usage_by_source: {
        measured: { ...measured(0.3, "item"), prompt_tokens: 20, completion_tokens: 10, total_tokens: 30, requests: 2 },
        self_reported: { prompt_tokens: 1, completion_tokens: 2, total_tokens: 3, items: 1 },
        traceability: { source: "traceability", total_tokens: 7, cost: 2, steps: 1, items: 1 },
      },
    });
  });

  it("is absent when no row has usage", () => {
    const totals = new UsageTotals();
    totals.add({ id: "a", status: "failed", passed: false, elapsed_seconds: 0 });
    expect(totals.aggregate()).toEqual({});
  });

  it("sums an item's Traceability reports over its questions", async () => {
    let n = 0;
    const inner: Participant = {
      url: "http://x/",
      ask: () =>
        Promise.resolve({
          text: "",
          data: [],
          state: "completed",
          traceability: { source: "traceability", total_tokens: ++n * 10, steps: 1 },
        }),
      close: () => Promise.resolve(),
    };
    const traced = tracedParticipant(inner);
    const signal = new AbortController().signal;
    await traced.participant.ask({ text: "q" }, signal);
    await traced.participant.ask({ text: "q" }, signal);
    expect(traced.total()).toEqual({ source: "traceability", total_tokens: 30, steps: 2 });
  });
});
