/** Identifying a task by its instruction among the datasets the gold purple knows. */
import { afterAll, beforeAll, describe, expect, test } from "vitest";
import { mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import {
  identifyByInstruction,
  MIN_IDENTIFYING_CHARS,
  normaliseWhitespace,
} from "../../../src/purple/solvers/gold-identify.js";
import { SAMPLE_PROBLEMS } from "../../../src/benchmarks/humaneval/sample-dataset.js";

const instance = (id: string, problem_statement: string) => ({
  instance_id: id,
  repo: "demo/demo",
  base_commit: "HEAD",
  problem_statement,
  patch: "diff --git a/f.py b/f.py\n",
  test_patch: "diff --git a/t.py b/t.py\n",
  FAIL_TO_PASS: [],
  PASS_TO_PASS: [],
});

let dir: string;
let file: string;
beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), "gold-identify-"));
  file = join(dir, "instances.json");
  await writeFile(
    file,
    JSON.stringify([
      instance("demo__demo-1", "parse() crashes on an empty line\n\nSteps:\n  1. parse('')"),
      instance("demo__demo-2", "short"),
    ]),
  );
});
afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
});

const ctx = () => ({ datasets: [file], env: process.env });

describe("identifyByInstruction", () => {
  test("whitespace runs compare as one space", () => {
    expect(normaliseWhitespace("  a\n\n\tb  c ")).toBe("a b c");
  });

  test("a SWE-bench problem statement inside a wrapping instruction, reflowed", async () => {
    const got = await identifyByInstruction(
      "Resolve the issue below.\nIssue:\nparse() crashes   on an empty line Steps: 1. parse('')\nGood luck.",
      ctx(),
    );
    expect(got).toEqual({ found: { benchmark: "swebench", instance_id: "demo__demo-1" } });
  });

  test("a HumanEval prompt of the sample set, without any --dataset", async () => {
    const p = SAMPLE_PROBLEMS[7]!;
    const got = await identifyByInstruction(`Complete:\n${p.prompt}`, { datasets: [], env: process.env });
    expect(got).toEqual({ found: { benchmark: "humaneval", instance_id: p.task_id } });
  });

  test(`a text under ${MIN_IDENTIFYING_CHARS} characters never identifies (\`short\` is in many instructions)`, async () => {
    const got = await identifyByInstruction("Keep the answer short and make the tests pass.", ctx());
    expect(got).toMatchObject({ problem: expect.stringMatching(/^no known instance/) });
  });

  test("a dataset that is not SWE-bench nor HumanEval is skipped, not fatal", async () => {
    const junk = join(dir, "junk.txt");
    await writeFile(junk, "not a dataset");
    const got = await identifyByInstruction("parse() crashes on an empty line Steps: 1. parse('')", {
      datasets: [junk, file],
      env: process.env,
    });
    expect(got).toEqual({ found: { benchmark: "swebench", instance_id: "demo__demo-1" } });
  });
});
