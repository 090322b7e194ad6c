/**
 * HumanEval's aggregate reports the completions per task a run really scored:
 * with a samples file (`predictions`) the file decides, not `--n` (OpenAI's
 * harness scores every line), and pass@k is computed from each task's counts.
 */
import { describe, expect, test } from "vitest";
import { aggregateHumanEval, createHumanEvalAggregator } from "../../../src/benchmarks/humaneval/aggregate.js";
import type { CompletionRecord, HumanEvalRow } from "../../../src/benchmarks/humaneval/row.js";
import { testRunOptions } from "../../support/run-options.js";

function sample(passed: boolean): CompletionRecord {
  return {
    status: passed ? "passed" : "failed",
    failure_mode: passed ? null : "model_wrong_answer",
    limit_breach: false,
    executed: true,
    duration_ms: 5,
    completion_kind: "body",
    completion: "    return 1\n",
    agent_seconds: 0,
  };
}

function row(id: string, outcomes: boolean[]): HumanEvalRow {
  const samples = outcomes.map(sample);
  const numCorrect = outcomes.filter(Boolean).length;
  return {
    id,
    task_id: id,
    entry_point: "f",
    status: numCorrect === samples.length ? "passed" : "failed",
    passed: numCorrect === samples.length,
    elapsed_seconds: 0,
    error: null,
    n: samples.length,
    num_correct: numCorrect,
    samples,
  };
}

describe("HumanEval aggregate: n is what the run scored", () => {
  const rows = [
    row("T/0", [true, true, false, true, true, true, true, true, true, true]),
    row("T/1", [false, false, false, false, false, true, false, false, false, false]),
  ];

  test("with a samples file of 10 completions per task, n is 10 whatever --n said", () => {
    const options = testRunOptions({ benchmark: "humaneval", predictions: "/nonexistent/s.jsonl", n: 1, k: [1, 10] });
    const agg = aggregateHumanEval(rows, options);
    expect(agg).toMatchObject({ n: 10, total: 20, tasks: 2, passed: 10 });
    // pass@1 = mean of c/n over tasks = (0.9 + 0.1) / 2; pass@10 = 1 for both (each has a correct one).
    expect(agg["pass_at_k"]).toEqual({ "pass@1": 0.5, "pass@10": 1 });
  });

  test("without a samples file, n is the n the participant was asked", () => {
    const options = testRunOptions({ benchmark: "humaneval", n: 10, k: [1] });
    expect(aggregateHumanEval(rows, options)["n"]).toBe(10);
  });

  test("fed one row at a time, the aggregate equals the one over every row", () => {
    const options = testRunOptions({ benchmark: "humaneval", predictions: "/nonexistent/s.jsonl", n: 1, k: [1, 10] });
    const agg = createHumanEvalAggregator(options);
    for (const r of rows) agg.add(r);
    expect(agg.result()).toEqual(aggregateHumanEval(rows, options));
  });
});
