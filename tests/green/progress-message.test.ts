import { describe, expect, it } from "vitest";
import { ProgressTracker } from "../../src/green/progress-message.js";

const finished = (done: number, status: string, passed: boolean, passedSoFar: number) =>
  ({
    event: "task_finished",
    task_id: `T/${done}`,
    i: done - 1,
    status,
    passed,
    done,
    total: 3,
    passed_so_far: passedSoFar,
  }) as const;

describe("ProgressTracker", () => {
  it("counts passed, failed (the participant's) and errored (ours) apart, in the text and the data", () => {
    const t = new ProgressTracker("r", "humaneval");
    t.apply({ event: "run_started", run_id: "r", benchmark: "humaneval", total: 3 });
    t.apply(finished(1, "passed", true, 1));
    t.apply(finished(2, "failed", false, 1));
    const p = t.apply(finished(3, "error", false, 1));
    expect(p.text).toBe("T/3: error — 3/3 done, 1 passed, 1 failed, 1 errored");
    expect(p.data).toMatchObject({ done: 3, passed: 1, failed: 1, errors: 1 });
  });

  it("counts an item by its failure mode: the participant's exception is a failure, our sandbox's an error", () => {
    const t = new ProgressTracker("r", "humaneval");
    t.apply({ event: "run_started", run_id: "r", benchmark: "humaneval", total: 3 });
    t.apply({ ...finished(1, "error", false, 0), failure_mode: "model_syntax_error" });
    t.apply({ ...finished(2, "error", false, 0), failure_mode: "model_exception" });
    const p = t.apply({ ...finished(3, "error", false, 0), failure_mode: "infrastructure_sandbox" });
    expect(p.text).toBe("T/3: error — 3/3 done, 0 passed, 2 failed, 1 errored");
    expect(p.data).toMatchObject({ done: 3, passed: 0, failed: 2, errors: 1 });
  });

  it("says when samples asked for more items than the dataset has", () => {
    const t = new ProgressTracker("r", "humaneval");
    const p = t.apply({
      event: "run_started",
      run_id: "r",
      benchmark: "humaneval",
      total: 12,
      samples_requested: 40,
      dataset_items: 12,
    });
    expect(p.text).toBe(
      "Run r started: 12 item(s) of humaneval (samples 40 exceeds the dataset's 12 item(s): all 12 run)",
    );
    expect(p.data).toMatchObject({ samples_requested: 40, dataset_items: 12 });
    const plain = new ProgressTracker("r", "humaneval").apply({
      event: "run_started",
      run_id: "r",
      benchmark: "humaneval",
      total: 12,
    });
    expect(plain.text).toBe("Run r started: 12 item(s) of humaneval");
  });
});
