import { describe, expect, it } from "vitest";
import { ProgressTracker } from "../../src/green/progress-message.js";
import {
  DEFAULT_PRIOR_SECONDS,
  PRIOR_SECONDS_PER_ITEM,
  estimateRun,
  roughDuration,
} from "../../src/green/run-estimate.js";

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
    expect(p.text).toMatch(
      /^Run r started: 12 item\(s\) of humaneval \(samples 40 exceeds the dataset's 12 item\(s\): all 12 run\); estimate /,
    );
    expect(p.data).toMatchObject({ samples_requested: 40, dataset_items: 12 });
    const plain = new ProgressTracker("r", "humaneval").apply({
      event: "run_started",
      run_id: "r",
      benchmark: "humaneval",
      total: 12,
    });
    expect(plain.text).toMatch(/^Run r started: 12 item\(s\) of humaneval; estimate /);
  });
});

describe("ProgressTracker: estimate and time budget", () => {
  /** A clock the test moves. */
  const clock = () => {
    let t = 1_000_000;
    return { now: () => t, advance: (s: number) => (t += s * 1000) };
  };

  it("estimates from the items and the benchmark's prior in the run's first status, then from the measured pace", () => {
    const c = clock();
    const t = new ProgressTracker("r", "swebench", { budgetSeconds: 1800, now: c.now });
    const first = t.apply({
      event: "run_started",
      run_id: "r",
      benchmark: "swebench",
      total: 10,
      budget_left_seconds: 1790,
    });
    const prior = PRIOR_SECONDS_PER_ITEM["swebench"]!;
    expect(first.data["estimate"]).toMatchObject({
      items_left: 10,
      pace: "prior",
      seconds_per_item: prior,
      seconds_left: 10 * prior,
      budget_seconds: 1800,
      budget_left_seconds: 1790,
    });
    expect(first.text).toContain(`estimate ${roughDuration(10 * prior)} for 10 item(s) left`);
    t.apply({ event: "task_started", task_id: "T/1", i: 0, total: 10 });
    c.advance(200); // one item took 200 s: 9 left take 1800 s, more than the 1590 s left of the budget
    const p = t.apply({ ...finished(1, "passed", true, 1), total: 10 });
    expect(p.data["estimate"]).toMatchObject({
      items_left: 9,
      pace: "measured",
      seconds_per_item: 200,
      seconds_left: 1800,
      budget_left_seconds: 1590,
      fits: false,
      items_within_budget: 7,
    });
    expect(p.text).toMatch(/~30 min left \(200 s\/item measured\); the time budget ends it after about 7 more$/);
  });

  it("counts a resumed run's checkpoint rows as done, not as its pace", () => {
    const c = clock();
    const t = new ProgressTracker("r", "humaneval", { now: c.now });
    const first = t.apply({ event: "run_started", run_id: "r", benchmark: "humaneval", total: 10, resumed: 6 });
    expect(first.text).toContain("6 resumed from the checkpoint");
    expect(first.data["estimate"]).toMatchObject({ items_left: 4, pace: "prior", budget_seconds: null, fits: null });
    t.apply({ event: "task_started", task_id: "T/7", i: 6, total: 10 });
    c.advance(4);
    const p = t.apply({ ...finished(7, "passed", true, 7), total: 10 });
    expect(p.data["estimate"]).toMatchObject({
      items_left: 3,
      pace: "measured",
      seconds_per_item: 4,
      seconds_left: 12,
    });
  });

  it("says a partial end plainly: judged, not run, and how to resume", () => {
    const t = new ProgressTracker("r", "humaneval", { budgetSeconds: 60 });
    t.apply({ event: "run_started", run_id: "r", benchmark: "humaneval", total: 3 });
    t.apply(finished(1, "passed", true, 1));
    const p = t.apply({ event: "run_finished", aggregate: {}, partial: true, not_run: 2 });
    expect(p.text).toBe(
      "Run r ended partial: its time budget of 60 s ran out; 1/3 judged, 1 passed, 0 failed, 0 errored, 2 not run " +
        "(not counted as failures; a request with run_id r and resume: true runs them); building the evaluation bundle",
    );
    expect(p.data).toMatchObject({ partial: true, not_run: 2 });
  });
});

describe("estimateRun", () => {
  it("fits or not against what is left of the budget; without one it says nothing of fitting", () => {
    expect(
      estimateRun({
        benchmark: "humaneval",
        itemsLeft: 10,
        measured: { done: 5, seconds: 10 },
        budgetSeconds: 100,
        budgetSpentSeconds: 70,
      }),
    ).toMatchObject({
      seconds_per_item: 2,
      seconds_left: 20,
      budget_left_seconds: 30,
      fits: true,
      items_within_budget: null,
    });
    expect(estimateRun({ benchmark: "nope", itemsLeft: 2 })).toMatchObject({
      seconds_per_item: DEFAULT_PRIOR_SECONDS,
      fits: null,
      budget_seconds: null,
    });
  });
});
