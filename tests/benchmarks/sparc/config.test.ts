import { mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { loadSparcConfig, parseSparcConfig } from "../../../src/benchmarks/sparc/config.js";
import { ValidationError, InputFileError } from "../../../src/util/errors.js";

const fixtures = join(import.meta.dirname, "../../fixtures/sparc");
const dirs: string[] = [];
afterAll(async () => {
  for (const d of dirs) await rm(d, { recursive: true, force: true });
});

function problemsOf(value: unknown): string[] {
  try {
    parseSparcConfig(value, "cfg.json");
  } catch (err) {
    expect(err).toBeInstanceOf(ValidationError);
    return (err as ValidationError).problems;
  }
  throw new Error("expected a ValidationError");
}

describe("SPARC config loading", () => {
  it("accepts the plan's own shape and the example file", async () => {
    const plan = await loadSparcConfig(join(fixtures, "plan-humaneval.json"));
    expect(plan.testCases.map((t) => t.id)).toEqual(["add", "reverse", "generic"]);
    const mixed = await loadSparcConfig(join(fixtures, "mixed-languages.json"));
    expect(mixed.packages?.javascript).toEqual(["is-number@7.0.0"]);
  });

  it("names the test case index, id and key of each problem", () => {
    const problems = problemsOf({
      type: "humaneval",
      name: "x",
      testCases: [
        { id: "ok", input: "print(1)", expectedOutput: "1" },
        { id: "bad-timeout", input: "print(1)", expectedOutput: "1", timeout: -5 },
        { id: "bad-lang", input: "x", expectedOutput: "", language: "ruby" },
        { id: "no-expected", input: "x" },
      ],
    });
    expect(problems).toContain('testCases[1] (id "bad-timeout"): key "timeout": must be > 0');
    expect(problems.some((p) => p.startsWith('testCases[2] (id "bad-lang"): key "language": must be one of'))).toBe(
      true,
    );
    expect(problems).toContain('testCases[3] (id "no-expected"): missing required key "expectedOutput"');
  });

  it("rejects unknown keys, unknown types, duplicate ids and option-like package names", () => {
    expect(problemsOf({ type: "mbpp", name: "x", testCases: [{ id: "a", input: "", expectedOutput: "" }] })[0]).toMatch(
      /^\/type: must be one of/,
    );
    expect(
      problemsOf({ type: "redcode", name: "x", testCases: [{ id: "a", input: "", expectedOutput: "", extra: 1 }] }),
    ).toEqual(['testCases[0] (id "a"): unknown key "extra"']);
    expect(
      problemsOf({
        type: "redcode",
        name: "x",
        testCases: [
          { id: "a", input: "", expectedOutput: "" },
          { id: "a", input: "", expectedOutput: "" },
        ],
      }),
    ).toEqual(['testCases[1] (id "a"): key "id": duplicates testCases[0]']);
    const pk = problemsOf({
      type: "humaneval",
      name: "x",
      packages: { javascript: ["--registry=http://evil"] },
      testCases: [{ id: "a", input: "", expectedOutput: "" }],
    });
    expect(pk[0]).toMatch(/^\/packages\/javascript\/0: must match pattern/);
  });

  it("resolves file: inputs against the config's directory and reports a missing one by test id", async () => {
    const dir = await mkdtemp(join(tmpdir(), "sparc-cfg-"));
    dirs.push(dir);
    await writeFile(join(dir, "prog.py"), "print('from file')\n");
    await writeFile(
      join(dir, "c.json"),
      JSON.stringify({
        type: "swebench",
        name: "f",
        testCases: [{ id: "f1", input: "file:prog.py", expectedOutput: "from file" }],
      }),
    );
    const cfg = await loadSparcConfig(join(dir, "c.json"));
    expect(cfg.testCases[0]?.input).toBe("print('from file')\n");
    await writeFile(
      join(dir, "d.json"),
      JSON.stringify({
        type: "swebench",
        name: "f",
        testCases: [{ id: "gone", input: "file:missing.py", expectedOutput: "" }],
      }),
    );
    await expect(loadSparcConfig(join(dir, "d.json"))).rejects.toThrow(/test case "gone": cannot read its input file/);
    await expect(loadSparcConfig(join(dir, "nope.json"))).rejects.toBeInstanceOf(InputFileError);
  });
});
