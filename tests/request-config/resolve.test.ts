import { describe, expect, it } from "vitest";
import { PARTICIPANT_LANES_PER_SLOT, checkConfig, resolveConfig } from "../../src/request-config/resolve.js";

describe("the request config's one resolver", () => {
  it("applies the schema's defaults and fixes run id, concurrency, participant_concurrency and samples", () => {
    const raw = { benchmark: "humaneval", num_instances: 4, concurrency: 2 };
    const r = resolveConfig(raw, { newRunId: (b) => `${b}-id` });
    expect(r).toMatchObject({
      ok: true,
      config: {
        benchmark: "humaneval",
        dataset: "sample",
        seed: 0,
        sandbox: "local",
        samples: 4,
        run_id: "humaneval-id",
        concurrency: 2,
        participant_concurrency: 2 * PARTICIPANT_LANES_PER_SLOT,
      },
    });
    expect(raw).toEqual({ benchmark: "humaneval", num_instances: 4, concurrency: 2 }); // input untouched
  });

  it("returns a resolved config unchanged (the runner re-checks the green agent's file without changing it)", () => {
    const first = resolveConfig({ benchmark: "swebench", agent: "http://a/", k: [1, 5], n: 5 });
    expect(first.ok).toBe(true);
    if (!first.ok) return;
    const second = resolveConfig(JSON.parse(JSON.stringify(first.config)));
    expect(second).toEqual({ ok: true, config: first.config });
  });

  it("checks types as written (no coercion) and names every problem", () => {
    const r = resolveConfig({ benchmark: "humaneval", seed: "3", bogus: 1 });
    expect(r.ok).toBe(false);
    if (!r.ok) expect(r.errors.map((e) => e.keyword).sort()).toEqual(["additionalProperties", "type"]);
    expect(checkConfig({ benchmark: "humaneval", samples: 2 })).toEqual([]);
    expect(checkConfig({ benchmark: "nope" })).toHaveLength(1);
  });
});
