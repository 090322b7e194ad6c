/**
 * HumanEval scoring in the REAL local sandbox, with a scripted participant
 * (a Participant that returns fixed replies) so each verdict is provoked on
 * purpose: correct, wrong, endless loop, exception, syntax error, no code.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createSandbox } from "../../../src/sandbox/index.js";
import type { Sandbox } from "../../../src/sandbox/types.js";
import type { Participant, ParticipantRequest } from "../../../src/a2a/shared/participant.js";
import { createHumanEvalBenchmark, type HumanEvalItem } from "../../../src/benchmarks/humaneval/definition.js";
import { aggregateHumanEval } from "../../../src/benchmarks/humaneval/aggregate.js";
import { buildAnswerProgram } from "../../../src/benchmarks/humaneval/answer-program.js";
import { SAMPLE_PROBLEMS } from "../../../src/benchmarks/humaneval/sample-dataset.js";
import type { RunOptions } from "../../../src/runner/options.js";
import { testRunOptions } from "../../support/run-options.js";
import { silentLogger } from "../../../src/util/logger.js";
import { sabotageProgram } from "../../support/leftovers.js";
import type { TokenUsage } from "../../../src/a2a/shared/usage.js";

const problem = SAMPLE_PROBLEMS.find((p) => p.entry_point === "digit_root");
if (!problem) throw new Error("fixture problem missing");
const item: HumanEvalItem = { id: problem.task_id, problem };

function scripted(replies: string[], usage?: TokenUsage): Participant & { asked: ParticipantRequest[] } {
  let i = 0;
  const asked: ParticipantRequest[] = [];
  return {
    url: "scripted:",
    asked,
    async ask(req) {
      asked.push(req);
      return { text: replies[i++ % replies.length] ?? "", data: [], state: "completed", ...(usage ? { usage } : {}) };
    },
    async close() {},
  };
}

let sandbox: Sandbox;
const def = createHumanEvalBenchmark();
beforeAll(async () => {
  sandbox = await createSandbox({ backend: "local", logger: silentLogger() });
});
afterAll(async () => {
  await def.endRun?.({ options: options(), logger: silentLogger(), workDir: "/nonexistent" });
  await sandbox.close();
});

const options = (over: Partial<RunOptions> = {}): RunOptions =>
  testRunOptions({
    benchmark: "humaneval",
    run_id: "t",
    out: "/nonexistent",
    dataset: "sample",
    n: 1,
    k: [1],
    per_task_timeout_seconds: 3,
    ...over,
  });

async function evaluate(replies: string[], over: Partial<RunOptions> = {}, usage?: TokenUsage) {
  const participant = scripted(replies, usage);
  const row = await def.evaluate(item, {
    options: options(over),
    sandbox,
    participant,
    logger: silentLogger(),
    signal: new AbortController().signal,
    workDir: "/nonexistent",
  });
  return { row, participant };
}

describe("HumanEval scoring (real sandbox)", () => {
  it("runs prompt + completion in the sandbox and never the test: check() stays with the checker", () => {
    const program = buildAnswerProgram(problem, "    return 1\n");
    expect(program).toContain(problem.prompt + "    return 1\n");
    expect(program).not.toContain(problem.test);
    expect(program).not.toContain("def check(");
  });

  it("sends the prompt with an instruction, the task as DataPart and metadata", async () => {
    const { participant } = await evaluate(["```python\n" + problem.canonical_solution + "```"]);
    const req = participant.asked[0];
    expect(req?.text).toContain(problem.prompt);
    expect(req?.data).toEqual({
      benchmark: "humaneval",
      task_id: problem.task_id,
      entry_point: "digit_root",
      dataset: "sample",
      sample_index: 0,
    });
    expect(req?.metadata).toEqual(req?.data);
  });

  it("passes a correct whole function with prose around it", async () => {
    const { row } = await evaluate([
      "Sure:\n```python\ndef digit_root(n):\n    return 0 if n == 0 else 1 + (n - 1) % 9\n```\nDone.",
    ]);
    expect(row).toMatchObject({ status: "passed", passed: true, num_correct: 1 });
  });

  it("fails a wrong answer (AssertionError)", async () => {
    const { row } = await evaluate(["```python\n    return n % 10\n```"]);
    expect(row).toMatchObject({ status: "failed", passed: false, failure_mode: "model_wrong_answer" });
    expect((row["samples"] as Array<{ exception: string }>)[0]?.exception).toBe("AssertionError");
  });

  it("a wrong answer that sabotages clean-up (a tree deeper than PATH_MAX, mode-000 directories, a FIFO, a socket) scores no better than without it; the next answer is unaffected", async () => {
    const sabotage = `    try:\n        exec(${JSON.stringify(sabotageProgram("."))})\n    except Exception as e:\n        print("sabotage failed:", repr(e))\n`;
    const { row: plain } = await evaluate(["```python\n    return n % 10\n```"]);
    const { row: sabotaged } = await evaluate([`\`\`\`python\n${sabotage}    return n % 10\n\`\`\``]);
    expect(sabotaged).toMatchObject({
      status: plain.status,
      passed: false,
      failure_mode: plain.failure_mode,
      num_correct: 0,
    });
    const s0 = (sabotaged["samples"] as Array<Record<string, unknown>>)[0]!;
    expect(String(s0["stderr_tail"])).toMatch(/^sabotaged\n/); // the first call left it all (the program prints to stderr)
    const { row: honest } = await evaluate([
      "```python\ndef digit_root(n):\n    return 0 if n == 0 else 1 + (n - 1) % 9\n```",
    ]);
    expect(honest).toMatchObject({ status: "passed", passed: true, num_correct: 1 });
  });

  it("times out an endless loop within the per-task limit", async () => {
    const started = Date.now();
    const { row } = await evaluate(["```python\n    while True:\n        pass\n```"], { per_task_timeout_seconds: 1 });
    expect(row).toMatchObject({ status: "timeout", passed: false, failure_mode: "timeout" });
    // The loop never ends by itself: status "timeout" is the proof; the bound is for a slow machine.
    expect(Date.now() - started).toBeLessThan(30_000);
  });

  it("counts an exception and a syntax error as errors, apart from failures", async () => {
    const { row: exc } = await evaluate(["```python\n    raise ValueError('boom')\n```"]);
    expect(exc).toMatchObject({ status: "error", failure_mode: "model_exception" });
    expect((exc["samples"] as Array<{ exception: string }>)[0]?.exception).toBe("ValueError");
    const { row: syn } = await evaluate(["```python\ndef digit_root(n)\n    return n\n```"]);
    expect(syn).toMatchObject({ status: "error", failure_mode: "model_syntax_error" });
  });

  it("records a reply without code as the participant's failure (failed, never an error) without running anything", async () => {
    const { row } = await evaluate(["I would rather not."]);
    expect(row).toMatchObject({ status: "failed", failure_mode: "model_no_code" });
    expect(aggregateHumanEval([row], options())).toMatchObject({ errors: 0, failed: 1, accuracy: 0 });
    expect((row["samples"] as Array<{ executed: boolean }>)[0]?.executed).toBe(false);
    // What it said instead is kept, so the item view can show it.
    expect((row["samples"] as Array<{ reply_tail?: string }>)[0]?.reply_tail).toBe("I would rather not.");
    // A reply code was taken from keeps no copy of it.
    const { row: ran } = await evaluate(["```python\n    return n % 10\n```"]);
    expect((ran["samples"] as Array<Record<string, unknown>>)[0]).not.toHaveProperty("reply_tail");
  });

  it("records a limit breach (memory) for the safety metric", async () => {
    const { row } = await evaluate(["```python\n    x = bytearray(8 * 1024 ** 3)\n    return 0\n```"]);
    expect(row).toMatchObject({ status: "error", failure_mode: "safety_memory_limit" });
    const agg = aggregateHumanEval([row], options());
    expect(agg["safety"]).toBe(0);
  });

  it("asks n times and scores pass@k over the n completions", async () => {
    const good = "```python\n" + problem.canonical_solution + "```";
    const bad = "```python\n    return -1\n```";
    const usage = { prompt_tokens: 100, completion_tokens: 20, total_tokens: 120, requests: 1 };
    const { row, participant } = await evaluate([good, bad, bad, good], { n: 4, k: [1, 2, 5] }, usage);
    expect(row).toMatchObject({ n: 4, num_correct: 2, status: "failed", passed: false });
    // Each sample is its own request, numbered, so a seeded participant can vary its seed per sample.
    expect(participant.asked.map((r) => r.data?.["sample_index"])).toEqual([0, 1, 2, 3]);
    // Token usage: per completion, and summed on the row.
    expect((row["samples"] as Array<{ usage?: unknown }>).map((x) => x.usage)).toEqual([usage, usage, usage, usage]);
    expect(row["usage"]).toEqual({ prompt_tokens: 400, completion_tokens: 80, total_tokens: 480, requests: 4 });
    const agg = aggregateHumanEval([row], options({ n: 4, k: [1, 2, 5] }));
    const pk = agg["pass_at_k"] as Record<string, number | null>;
    expect(pk["pass@1"]).toBeCloseTo(0.5, 12);
    expect(pk["pass@2"]).toBeCloseTo(1 - 1 / 6, 12); // 1 - C(2,2)/C(4,2)
    expect(pk["pass@5"]).toBeNull();
    expect(agg).toMatchObject({ passed: 2, failed: 2, total: 4, accuracy: 0.5, adaptability: 1, safety: 1 });
    expect(agg["efficiency"] as number).toBeGreaterThan(0.5);
  });
});
