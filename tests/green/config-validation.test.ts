import { describe, expect, it } from "vitest";
import { validateAssessmentConfig } from "../../src/green/config-validation.js";
import { parseRunArgs } from "../../src/runner/run-args.js";

const participants = { agent: "http://127.0.0.1:9/" };

describe("validateAssessmentConfig: unknown keys", () => {
  it("a mistyped key gets a did-you-mean, as the CLI's flags do", () => {
    const r = validateAssessmentConfig({ benchmark: "humaneval", sampels: 3, sandbx: "docker" }, participants, []);
    expect(r.ok).toBe(false);
    const problems = r.ok ? [] : r.problems;
    expect(problems).toContain('config: unknown key "sampels" (did you mean "samples"?)');
    expect(problems).toContain('config: unknown key "sandbx" (did you mean "sandbox"?)');
  });

  it("the time budget key is known, and a mistyped one is pointed at it (CLI flag too)", () => {
    expect(validateAssessmentConfig({ benchmark: "humaneval", time_budget_seconds: 1500 }, participants, []).ok).toBe(
      true,
    );
    const r = validateAssessmentConfig({ benchmark: "humaneval", time_budget_secs: 1500 }, participants, []);
    expect(r.ok ? [] : r.problems).toContain(
      'config: unknown key "time_budget_secs" (did you mean "time_budget_seconds"?)',
    );
    const bad = validateAssessmentConfig({ benchmark: "humaneval", time_budget_seconds: 0 }, participants, []);
    expect(bad.ok).toBe(false);
    expect(() => parseRunArgs(["humaneval", "--time-budget-second", "60"])).toThrow(
      "(did you mean --time-budget-seconds?)",
    );
    expect(parseRunArgs(["humaneval", "--time-budget-seconds", "60"])).toBeDefined();
  });

  it("a key nothing like a known one is only named", () => {
    const r = validateAssessmentConfig({ benchmark: "humaneval", frobnicate: true }, participants, []);
    expect(r.ok ? [] : r.problems).toContain('config: unknown key "frobnicate"');
  });
});

describe("validateAssessmentConfig: the shard engine", () => {
  it("local and swarm are accepted, kubernetes (a manifest for kubectl, nothing run) is refused, others unknown", () => {
    for (const engine of ["local", "swarm"])
      expect(
        validateAssessmentConfig({ benchmark: "humaneval", shards: 2, shard_engine: engine }, participants, []).ok,
      ).toBe(true);
    const k8s = validateAssessmentConfig(
      { benchmark: "humaneval", shards: 2, shard_engine: "kubernetes" },
      participants,
      [],
    );
    expect(k8s.ok ? [] : k8s.problems.join("; ")).toContain("config.shard_engine: kubernetes writes an Indexed Job");
    const other = validateAssessmentConfig(
      { benchmark: "humaneval", shards: 2, shard_engine: "nomad" },
      participants,
      [],
    );
    expect(other.ok).toBe(false);
  });
});
