import { describe, expect, it } from "vitest";
import { validateAssessmentConfig } from "../../src/green/config-validation.js";

const participants = { agent: "http://127.0.0.1:9/" };

describe("validateAssessmentConfig: unknown keys", () => {
  it("a mistyped key gets a did-you-mean, as the CLI's flags do", () => {
    const r = validateAssessmentConfig({ benchmark: "humaneval", sampels: 3, sandbx: "docker" }, participants, []);
    expect(r.ok).toBe(false);
    const problems = r.ok ? [] : r.problems;
    expect(problems).toContain('config: unknown key "sampels" (did you mean "samples"?)');
    expect(problems).toContain('config: unknown key "sandbx" (did you mean "sandbox"?)');
  });

  it("a key nothing like a known one is only named", () => {
    const r = validateAssessmentConfig({ benchmark: "humaneval", frobnicate: true }, participants, []);
    expect(r.ok ? [] : r.problems).toContain('config: unknown key "frobnicate"');
  });
});
