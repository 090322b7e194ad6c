/**
 * What an item asked, rebuilt from the run's dataset by the benchmark's own code: the text sent when a
 * participant was asked, the prompt alone for a predictions run, nothing when the dataset changed.
 */
import { describe, expect, test } from "vitest";
import { itemTask } from "../../src/view/item-task.js";
import { loadHumanEval } from "../../src/benchmarks/humaneval/dataset.js";
import { INSTRUCTION } from "../../src/benchmarks/humaneval/request.js";
import { SAMPLE_PROBLEMS } from "../../src/benchmarks/humaneval/sample-dataset.js";

import { SAMPLE_TASKS_DIR } from "../../src/benchmarks/terminal/dataset.js";

const problem = SAMPLE_PROBLEMS[3]!;

describe("itemTask", () => {
  test("HumanEval asked of a participant: the instruction and the prompt, as sent", async () => {
    const { sha256 } = await loadHumanEval("sample");
    const task = await itemTask(problem.task_id, {
      benchmark: "humaneval",
      config: { agent: "http://127.0.0.1:9/" },
      dataset: { path: "sample", sha256 },
    });
    expect(task!.note).toBeNull();
    expect(task!.sections).toEqual([{ title: "Sent to the participant", text: `${INSTRUCTION}\n\n${problem.prompt}` }]);
  });

  test("a predictions run: the prompt alone, and that nothing was sent", async () => {
    const { sha256 } = await loadHumanEval("sample");
    const task = await itemTask(problem.task_id, {
      benchmark: "humaneval",
      config: { predictions: "/x/samples.jsonl" },
      dataset: { path: "sample", sha256 },
    });
    expect(task!.sections).toEqual([{ title: "Prompt", text: problem.prompt }]);
    expect(task!.note).toContain("nothing was sent");
  });

  test("a dataset whose sha256 is not the run's shows nothing of it; an unknown id or benchmark is null", async () => {
    const changed = await itemTask(problem.task_id, {
      benchmark: "humaneval",
      config: {},
      dataset: { path: "sample", sha256: "0".repeat(64) },
    });
    expect(changed!.sections).toEqual([]);
    expect(changed!.note).toMatch(/not the one this run read/);
    const { sha256 } = await loadHumanEval("sample");
    expect(
      await itemTask("nope", { benchmark: "humaneval", config: {}, dataset: { path: "sample", sha256 } }),
    ).toBeNull();
    expect(await itemTask("x", { benchmark: "other", config: {}, dataset: { path: "sample", sha256 } })).toBeNull();
  });

  test("a dataset that cannot be read is said, not thrown", async () => {
    const task = await itemTask("x", {
      benchmark: "humaneval",
      config: {},
      dataset: { path: "/nonexistent/humaneval.jsonl", sha256: null },
    });
    expect(task!.note).toMatch(/^The run's dataset cannot be read here: /);
  });

  test("a terminal attempt: its task directory's instruction, settings, verifier and Dockerfile", async () => {
    const task = await itemTask("write-file#2", {
      benchmark: "terminal",
      config: {},
      dataset: { path: SAMPLE_TASKS_DIR, sha256: null },
    });
    expect(task!.sections.map((s) => s.title)).toEqual([
      "Instruction (instruction.md)",
      "Settings (task.toml)",
      "Verifier (tests/test.sh, never in the environment during the episode)",
      "Environment (environment/Dockerfile)",
    ]);
    expect(task!.sections[0]!.text).toContain("/app/greeting.txt");
    expect(task!.sections[2]!.text).toContain("/logs/verifier/reward.txt");
    expect(
      await itemTask("nope", { benchmark: "terminal", config: {}, dataset: { path: SAMPLE_TASKS_DIR, sha256: null } }),
    ).toBeNull();
  });
});
