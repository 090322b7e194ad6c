/**
 * A run's headline: its benchmark's own metric with a 95 % interval (the results' own, else Wilson's),
 * and which directories are runs — a green agent's run directory its runner never wrote into included.
 */
import { afterEach, beforeEach, describe, expect, test } from "vitest";
import { mkdtemp, mkdir, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { headlineOf, summarizeRun, wilsonInterval } from "../../src/view/run-summary.js";
import { findRuns } from "../../src/view/run-dirs.js";

describe("wilsonInterval", () => {
  test("the textbook values: 2 of 3, 0 of 10, 10 of 10", () => {
    const a = wilsonInterval(2 / 3, 3);
    expect(a.low).toBeCloseTo(0.2077, 3);
    expect(a.high).toBeCloseTo(0.9385, 3);
    const none = wilsonInterval(0, 10);
    expect(none.low).toBe(0);
    expect(none.high).toBeCloseTo(0.2775, 3);
    const all = wilsonInterval(1, 10);
    expect(all.low).toBeCloseTo(0.7225, 3);
    expect(all.high).toBe(1);
  });
});

describe("headlineOf", () => {
  test("SWE-bench: the resolved rate over its items", () => {
    const h = headlineOf("swebench", { resolved_rate: 0.5, total: 4, failure_modes: {} });
    expect(h).toMatchObject({ label: "resolved", key: "resolved_rate", value: 0.5, n: 4 });
    expect(h!.ci!.method).toBe("Wilson, 4 items");
  });

  test("HumanEval: pass@1 over the tasks; without pass@1 the smallest k, with no interval", () => {
    expect(headlineOf("humaneval", { pass_at_k: { "pass@1": 0.75, "pass@10": 0.9 }, tasks: 8 })).toMatchObject({
      label: "pass@1",
      value: 0.75,
      n: 8,
    });
    const k = headlineOf("humaneval", { pass_at_k: { "pass@10": 0.9, "pass@5": 0.8 }, tasks: 8 });
    expect(k).toMatchObject({ label: "pass@5", value: 0.8, ci: null });
  });

  test("RedCode: safety over the judged items (errors are not judged); SPARC: accuracy over the executed", () => {
    expect(headlineOf("redcode", { safety: 0.9, items: 12, errors: 2, accuracy: 0.1 })).toMatchObject({
      label: "safety",
      n: 10,
    });
    expect(headlineOf("sparc", { accuracy: 0.5, total: 10, skipped: 2, safety: 1 })).toMatchObject({
      label: "accuracy",
      n: 8,
    });
  });

  test("an interval the results carry wins over Wilson's; a reward gets none of its own making", () => {
    const own = headlineOf("swebench", { resolved_rate: 0.5, total: 4, resolved_rate_ci: [0.1, 0.9] });
    expect(own!.ci).toEqual({ low: 0.1, high: 0.9, method: "from the results" });
    expect(headlineOf("other", { mean_reward: 3.5 })).toMatchObject({ label: "mean reward", value: 3.5, ci: null });
  });
});

describe("run directories", () => {
  let dir: string;
  beforeEach(async () => {
    dir = await mkdtemp(join(tmpdir(), "a2a-view-dirs-"));
  });
  afterEach(async () => {
    await rm(dir, { recursive: true, force: true });
  });

  test("a green run its runner never wrote into is a run, failed with the bundle's reason; a stray config.json is not", async () => {
    await mkdir(join(dir, "swebench", "g1"), { recursive: true });
    await writeFile(
      join(dir, "swebench", "g1", "config.json"),
      JSON.stringify({ benchmark: "swebench", run_id: "g1" }),
    );
    await mkdir(join(dir, "swebench", "g2"), { recursive: true });
    await writeFile(
      join(dir, "swebench", "g2", "config.json"),
      JSON.stringify({ benchmark: "swebench", run_id: "g2" }),
    );
    await writeFile(
      join(dir, "swebench", "g2", "evaluation_bundle.json"),
      JSON.stringify({ status: "runner_failed", status_reason: "runner exited with code 1: boom" }),
    );
    await mkdir(join(dir, "notes"), { recursive: true });
    await writeFile(join(dir, "notes", "config.json"), JSON.stringify({ theme: "dark" }));
    const runs = await findRuns([dir]);
    expect(runs.map((r) => r.key).sort()).toEqual(["swebench/g1", "swebench/g2"]);
    const failed = await summarizeRun(runs.find((r) => r.key === "swebench/g2")!);
    expect(failed).toMatchObject({
      status: "error",
      benchmark: "swebench",
      run_id: "g2",
      error: { code: "runner_failed", message: "runner exited with code 1: boom" },
      reason: "runner_failed: runner exited with code 1: boom",
      headline: null,
    });
    // Only its config, long still: incomplete, saying it stopped before results.json.
    const still = await summarizeRun(
      runs.find((r) => r.key === "swebench/g1")!,
      Date.now() + 60 * 60 * 1000,
    );
    expect(still.status).toBe("incomplete");
    expect(still.reason).toMatch(/^stopped before writing results\.json/);
  });
});
