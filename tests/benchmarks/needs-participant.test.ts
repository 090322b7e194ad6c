import { describe, expect, test } from "vitest";
import { benchmarkNeedsParticipant } from "../../src/benchmarks/needs-participant.js";
import { getBenchmark, knownBenchmarks } from "../../src/benchmarks/index.js";
import { validateAssessmentConfig } from "../../src/green/config-validation.js";

const cases = [
  { benchmark: "humaneval" },
  { benchmark: "humaneval", predictions: "s.jsonl" },
  { benchmark: "swebench" },
  { benchmark: "swebench", predictions: "p.jsonl" },
  { benchmark: "redcode" },
  { benchmark: "redcode", replay_dataset_code: true },
  { benchmark: "sparc", sparc_config: "c.json" },
];

describe("benchmarkNeedsParticipant", () => {
  test("a predictions file or a replay replaces the participant; SPARC never asks one; others do", () => {
    expect(cases.map((c) => benchmarkNeedsParticipant(c))).toEqual([true, false, true, false, true, false, false]);
    expect(benchmarkNeedsParticipant({ benchmark: "smi-inhabit" })).toBe(true);
  });

  test("every runner plug-in answers exactly as the shared rule", async () => {
    for (const name of knownBenchmarks()) {
      const def = await getBenchmark(name);
      for (const c of cases.filter((x) => x.benchmark === name)) {
        expect(def.needsParticipant({ ...c, run_id: "r", out: "/nonexistent" } as never), JSON.stringify(c)).toBe(
          benchmarkNeedsParticipant(c),
        );
      }
    }
  });

  test("the green agent accepts a SPARC request without a participant (the run asks none)", () => {
    const r = validateAssessmentConfig(
      { benchmark: "sparc", sparc_config: "c.json" },
      {},
      ["/srv/allowed"],
      "/srv/allowed",
    );
    // The participant's one home is config.agent: none was given, none is made up.
    expect(r.ok).toBe(true);
    expect(r.ok && r.value.config.agent).toBeUndefined();
  });
});
