/**
 * How long a run will take, and whether it fits its time budget: from its
 * items and a pace. Before the run's first item finishes the pace is the
 * benchmark's prior (seconds per item measured here, a 2-core runner, see
 * docs/operators.md "Time budget"); after, it is the run's own measured pace
 * (wall time since the first item started per item finished, so parallel
 * lanes are in it). Pure: the caller gives the clock readings.
 */

/**
 * Seconds per item, wall time, measured on a busy 2-core host (load average 23 to 34) with the purple agent's
 * `gold` mode and the local sandbox, default concurrency, embedded samples (docs/operators.md "Time budget":
 * humaneval 12 items in 5.1 s, redcode 16 in 5.8 s, swebench 3 in 29.0 s), rounded up; the participant's own
 * thinking time is not in them (a model adds its own). The prior of an estimate before the run's own pace is
 * known; benchmarks without an entry get {@link DEFAULT_PRIOR_SECONDS}.
 */
export const PRIOR_SECONDS_PER_ITEM: Readonly<Record<string, number>> = {
  humaneval: 0.5,
  redcode: 0.5,
  swebench: 10,
  sparc: 30,
};

/** Prior of a benchmark not in {@link PRIOR_SECONDS_PER_ITEM}. */
export const DEFAULT_PRIOR_SECONDS = 30;

export interface RunEstimate {
  /** Items still to judge. */
  items_left: number;
  /** Seconds per item the estimate uses. */
  seconds_per_item: number;
  /** `prior`: the benchmark's measured pace here; `measured`: this run's own. */
  pace: "prior" | "measured";
  /** Seconds the items left should take. */
  seconds_left: number;
  /** The run's time budget, seconds, when it has one. */
  budget_seconds: number | null;
  /** With a budget: seconds of it left. */
  budget_left_seconds: number | null;
  /** With a budget: whether the items left fit in what is left of it (false: the run will end `partial`). */
  fits: boolean | null;
  /** With a budget that will not fit: about how many more items the budget allows. */
  items_within_budget: number | null;
}

export interface EstimateInput {
  benchmark: string;
  itemsLeft: number;
  /** Items finished by this run (resumed ones not counted) and the seconds since its first item started. */
  measured?: { done: number; seconds: number } | undefined;
  budgetSeconds?: number | undefined;
  /** Seconds of the budget already spent. */
  budgetSpentSeconds?: number | undefined;
}

const round1 = (v: number): number => Math.round(v * 10) / 10;

export function estimateRun(input: EstimateInput): RunEstimate {
  const measured = input.measured && input.measured.done > 0 ? input.measured : undefined;
  const perItem = measured
    ? measured.seconds / measured.done
    : (PRIOR_SECONDS_PER_ITEM[input.benchmark] ?? DEFAULT_PRIOR_SECONDS);
  const secondsLeft = perItem * Math.max(0, input.itemsLeft);
  const budget = input.budgetSeconds;
  const budgetLeft = budget === undefined ? null : Math.max(0, budget - (input.budgetSpentSeconds ?? 0));
  const fits = budgetLeft === null ? null : secondsLeft <= budgetLeft;
  return {
    items_left: Math.max(0, input.itemsLeft),
    seconds_per_item: round1(perItem),
    pace: measured ? "measured" : "prior",
    seconds_left: Math.round(secondsLeft),
    budget_seconds: budget ?? null,
    budget_left_seconds: budgetLeft === null ? null : Math.round(budgetLeft),
    fits,
    items_within_budget:
      budgetLeft === null || fits ? null : perItem > 0 ? Math.floor(budgetLeft / perItem) : input.itemsLeft,
  };
}

/** "~2 min", "~45 s", "~1.5 h". */
export function roughDuration(seconds: number): string {
  if (seconds < 90) return `~${Math.max(1, Math.round(seconds))} s`;
  if (seconds < 90 * 60) return `~${Math.round(seconds / 60)} min`;
  return `~${round1(seconds / 3600)} h`;
}

/** The estimate in words, for a status text. */
export function describeEstimate(e: RunEstimate, benchmark: string): string {
  const pace =
    e.pace === "measured"
      ? `${e.seconds_per_item} s/item measured in this run`
      : `${e.seconds_per_item} s/item, ${benchmark}'s pace on a 2-core runner`;
  let text = `estimate ${roughDuration(e.seconds_left)} for ${e.items_left} item(s) left (${pace})`;
  if (e.budget_seconds !== null) {
    text +=
      e.fits === false
        ? `; time budget ${e.budget_seconds} s (${e.budget_left_seconds} s left) will not fit them all: about ${e.items_within_budget} more, then the run ends partial (the rest resumable)`
        : `; fits the time budget of ${e.budget_seconds} s (${e.budget_left_seconds} s left)`;
  }
  return text;
}
