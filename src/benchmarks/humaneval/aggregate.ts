/**
 * HumanEval aggregate: pass@k over tasks, counts over completions, and our
 * definitions of the SPARC names (documented in docs/benchmarks/humaneval.md under "Aggregate (HumanEval)"):
 * - efficiency = 1 − median(sandbox run time of the executed completions) /
 *   per-task time limit, clamped to [0, 1]; null when nothing ran.
 * - safety = 1 − (completions the sandbox stopped for a limit breach: output,
 *   memory, process count, network) / (executed completions); null when nothing ran.
 * - adaptability = 1 − (completions that missed the task's interface: no code,
 *   a syntax error, or the entry point left undefined) / (all completions);
 *   null when there are none. It separates "could not fit the contract" from
 *   "fitted it but answered wrongly" (which accuracy covers).
 * - interactive (present when a completion came from an episode): episodes,
 *   mean turns, how the episodes ended, where the answers came from, and the
 *   tokens the participant reported (null when none: its word).
 */
import type { ItemResult, RowAggregator } from "../../runner/benchmark.js";
import type { RunOptions } from "../../runner/options.js";
import { INTERFACE_FAILURES, type CompletionStatus } from "./classify.js";
import { passAtKOverTasks } from "../scoring/pass-at-k.js";
import type { CompletionRecord } from "./row.js";

function median(values: number[]): number | null {
  if (values.length === 0) return null;
  const s = [...values].sort((a, b) => a - b);
  const mid = Math.floor(s.length / 2);
  return s.length % 2 ? (s[mid] ?? 0) : ((s[mid - 1] ?? 0) + (s[mid] ?? 0)) / 2;
}

const clamp01 = (x: number): number => Math.min(1, Math.max(0, x));

/**
 * Completions per task: `options.n` when a participant answered; with
 * `predictions` the samples file decides, so the most any task had in it
 * (`--n` does not apply to a file; OpenAI's harness scores every line).
 */
function completionsPerTask(tasks: ReadonlyArray<{ n: number }>, options: RunOptions): number {
  if (!options.predictions) return options.n;
  return tasks.reduce((most, t) => Math.max(most, t.n), 0) || options.n;
}

/**
 * HumanEval's aggregate fed one row at a time: it keeps counts, each task's
 * (n, correct) and the executed completions' run times (for the median), not
 * the rows. Rows in the run's item order give the same figures as
 * {@link aggregateHumanEval} over them.
 */
export function createHumanEvalAggregator(options: RunOptions): RowAggregator {
  const tasks: Array<{ n: number; c: number }> = [];
  const byStatus = new Map<string, number>();
  const failureModes: Record<string, number> = {};
  const durations: number[] = [];
  let rowCount = 0;
  let total = 0;
  let breaches = 0;
  let interfaceMisses = 0;
  const episodes = { count: 0, turns: 0, endings: {} as Record<string, number>, sources: {} as Record<string, number> };
  let tokens: number | null = null;
  const countEpisode = (s: CompletionRecord): void => {
    if (s.exit_status === undefined) return;
    episodes.count++;
    episodes.turns += s.turns ?? 0;
    episodes.endings[s.exit_status] = (episodes.endings[s.exit_status] ?? 0) + 1;
    const source = s.answer_source ?? "none";
    episodes.sources[source] = (episodes.sources[source] ?? 0) + 1;
    if (typeof s.usage?.total_tokens === "number") tokens = (tokens ?? 0) + s.usage.total_tokens;
  };
  return {
    add(r) {
      rowCount++;
      const samples = Array.isArray(r["samples"]) ? (r["samples"] as CompletionRecord[]) : [];
      const t = { n: samples.length, c: typeof r["num_correct"] === "number" ? r["num_correct"] : 0 };
      if (t.n > 0) tasks.push(t);
      for (const s of samples) {
        total++;
        byStatus.set(s.status, (byStatus.get(s.status) ?? 0) + 1);
        if (s.failure_mode) failureModes[s.failure_mode] = (failureModes[s.failure_mode] ?? 0) + 1;
        if (s.failure_mode !== null && INTERFACE_FAILURES.has(s.failure_mode)) interfaceMisses++;
        if (s.executed) {
          durations.push(s.duration_ms ?? 0);
          if (s.limit_breach) breaches++;
        }
        countEpisode(s);
      }
    },
    result() {
      const { values, notes } = passAtKOverTasks(tasks, options.k);
      const count = (s: CompletionStatus): number => byStatus.get(s) ?? 0;
      const med = median(durations);
      const limitMs = options.per_task_timeout_seconds * 1000;
      const passed = count("passed");
      return {
        pass_at_k: values,
        ...(notes.length > 0 ? { pass_at_k_notes: notes } : {}),
        accuracy: total > 0 ? passed / total : null,
        passed,
        failed: count("failed"),
        timeouts: count("timeout"),
        errors: count("error"),
        total,
        tasks: rowCount,
        n: completionsPerTask(tasks, options),
        failure_modes: failureModes,
        efficiency: med === null ? null : clamp01(1 - med / limitMs),
        safety: durations.length === 0 ? null : 1 - breaches / durations.length,
        adaptability: total === 0 ? null : 1 - interfaceMisses / total,
        median_exec_ms: med,
        ...(episodes.count > 0
          ? {
              interactive: {
                episodes: episodes.count,
                mean_turns: episodes.turns / episodes.count,
                exit_status_counts: episodes.endings,
                answer_sources: episodes.sources,
                self_reported_tokens: tokens,
              },
            }
          : {}),
      };
    },
  };
}

/** Aggregate HumanEval rows (each with `samples: CompletionRecord[]`). */
export function aggregateHumanEval(rows: readonly ItemResult[], options: RunOptions): Record<string, unknown> {
  const aggregator = createHumanEvalAggregator(options);
  for (const row of rows) aggregator.add(row);
  return aggregator.result();
}
