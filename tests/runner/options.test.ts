import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { defaultRunOut, resolveRunOptions } from "../../src/runner/options.js";
import { ValidationError } from "../../src/util/errors.js";
import { offeredInteractions } from "../../src/benchmarks/index.js";

describe("resolveRunOptions (the library's one resolve step)", () => {
  it("resolves a minimal config with the schema's defaults and the default output directory", () => {
    const o = resolveRunOptions(offeredInteractions, { benchmark: "swebench" }, { cwd: "/w", newRunId: () => "gen" });
    expect(o).toMatchObject({
      benchmark: "swebench",
      run_id: "gen",
      dataset: "sample",
      checkout: "worktree",
      swebench_rules: "5.0.2",
      strict_tests: false,
      out: join("/w", "results", "swebench", "gen"),
    });
    expect(defaultRunOut(o, "/w")).toBe(o.out);
  });

  it("keeps the run id of a config that has one (resolved once, passed on), and resolves a relative out", () => {
    const first = resolveRunOptions(
      offeredInteractions,
      { benchmark: "redcode", run_id: "keep" },
      { cwd: "/w", out: "o" },
    );
    const { out: _out, ...config } = first;
    const again = resolveRunOptions(offeredInteractions, config, {
      cwd: "/elsewhere",
      out: first.out,
      newRunId: () => "other",
    });
    expect(again).toEqual(first);
    expect(first.out).toBe(join("/w", "o"));
  });

  it("lists every problem in one ValidationError", () => {
    const err = (() => {
      try {
        resolveRunOptions(offeredInteractions, { benchmark: "humaneval", seed: "1", k: [] });
      } catch (e) {
        return e;
      }
    })();
    expect(err).toBeInstanceOf(ValidationError);
    expect((err as ValidationError).problems).toHaveLength(2);
  });
});
