/**
 * The terminal benchmark's runner plug-in: Harbor / Terminal-Bench task
 * directories, each attempt one interactive episode in the task's own
 * environment, judged by the task's verifier out of the participant's reach
 * (attempt.ts, verdict.ts). `n` attempts per task (`<task>#<k>` items when n >
 * 1, run in parallel like any items); the aggregate reports the reward mean,
 * pass@k over the attempts, the tasks refused, build cache hits and each
 * task's timing.
 */
import { createHash } from "node:crypto";
import type { BenchmarkDefinition, ItemResult } from "../../runner/benchmark.js";
import type { RunOptions } from "../../runner/options.js";
import { passAtKOverTasks } from "../scoring/pass-at-k.js";
import { datasetDir, loadTasks } from "./dataset.js";
import { runAttempt, type AttemptItem } from "./attempt.js";
import type { TerminalRow } from "./row.js";

/** Item ids of a task's attempts: the task id alone for one attempt, else `<task>#<k>`. */
export function attemptIds(taskId: string, n: number): string[] {
  return n === 1 ? [taskId] : Array.from({ length: n }, (_, i) => `${taskId}#${i + 1}`);
}

const mean = (xs: number[]): number | null => (xs.length === 0 ? null : xs.reduce((a, b) => a + b, 0) / xs.length);

/** The aggregate of terminal rows (pure). */
export function aggregateTerminal(rows: readonly ItemResult[], ks: readonly number[]): Record<string, unknown> {
  const all = rows as readonly TerminalRow[];
  const scored = all.filter((r) => r.status === "passed" || r.status === "failed");
  const byTask = new Map<string, TerminalRow[]>();
  for (const r of scored) byTask.set(r.task_id, [...(byTask.get(r.task_id) ?? []), r]);
  const pass = passAtKOverTasks(
    [...byTask.values()].map((rs) => ({ n: rs.length, c: rs.filter((r) => r.passed).length })),
    ks,
  );
  const tasks: Record<string, unknown> = {};
  for (const r of all) {
    const t = (tasks[r.task_id] ??= {
      attempts: 0,
      passed: 0,
      errors: 0,
      rewards: [] as number[],
      seconds: [] as number[],
    }) as {
      attempts: number;
      passed: number;
      errors: number;
      rewards: number[];
      seconds: number[];
      build_seconds?: number;
    };
    t.attempts++;
    if (r.passed) t.passed++;
    if (r.status === "error") t.errors++;
    if (typeof r.reward === "number" && (r.status === "passed" || r.status === "failed")) t.rewards.push(r.reward);
    t.seconds.push(r.elapsed_seconds);
    if (typeof r.build_seconds === "number" && r.build_seconds > 0) t.build_seconds = r.build_seconds;
  }
  const perTask = Object.fromEntries(
    Object.entries(tasks).map(([id, v]) => {
      const t = v as {
        attempts: number;
        passed: number;
        errors: number;
        rewards: number[];
        seconds: number[];
        build_seconds?: number;
      };
      return [
        id,
        {
          attempts: t.attempts,
          passed: t.passed,
          errors: t.errors,
          reward_mean: mean(t.rewards),
          mean_seconds: mean(t.seconds),
          max_seconds: Math.max(...t.seconds),
          ...(t.build_seconds !== undefined ? { build_seconds: t.build_seconds } : {}),
        },
      ];
    }),
  );
  const withImage = all.filter((r) => typeof r.image_cache_hit === "boolean");
  return {
    reward_mean: mean(scored.map((r) => r.reward ?? 0)),
    accuracy: scored.length === 0 ? null : scored.filter((r) => r.passed).length / scored.length,
    ...pass.values,
    ...(pass.notes.length > 0 ? { pass_at_k_notes: pass.notes } : {}),
    attempts: { scored: scored.length, errors: all.filter((r) => r.status === "error").length },
    tampered: all.filter((r) => (r.tampered?.length ?? 0) > 0).map((r) => r.id),
    unsupported: all
      .filter((r) => r.status === "unsupported")
      .map((r) => ({ task_id: r.task_id, reasons: r.unsupported ?? [] })),
    image_cache_hits: withImage.filter((r) => r.image_cache_hit === true).length,
    image_builds: withImage.filter((r) => r.image_cache_hit === false).length,
    tasks: perTask,
  };
}

export function createTerminalBenchmark(): BenchmarkDefinition<AttemptItem> {
  return {
    name: "terminal",
    scoreMetric: "reward_mean",
    async describeDataset(options: RunOptions) {
      const tasks = await loadTasks(options.dataset);
      const h = createHash("sha256");
      for (const t of tasks) h.update(`${t.id}\0${t.instruction}\0`);
      return { path: datasetDir(options.dataset), sha256: h.digest("hex") };
    },
    async loadItems(options) {
      const tasks = await loadTasks(options.dataset);
      return tasks.flatMap((task) => attemptIds(task.id, options.n).map((id, i) => ({ id, task, attempt: i + 1 })));
    },
    needsParticipant: () => true,
    evaluate: (item, ctx) => runAttempt(item, ctx),
    aggregate: (rows, options) => aggregateTerminal(rows, options.k),
  };
}
