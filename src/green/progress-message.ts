/**
 * Turn runner events into progress: a human sentence for the `working` status
 * text and a DataPart `{done, total, passed, ...}` for machines.
 */
import {
  isHarnessErrorEvent,
  type RunFinishedEvent,
  type RunStartedEvent,
  type RunnerEvent,
} from "../runner/protocol.js";
import { assertNever } from "../util/errors.js";
import { describeEstimate, estimateRun, roughDuration, type RunEstimate } from "./run-estimate.js";

export interface ProgressData {
  [key: string]: unknown;
  run_id: string;
  benchmark: string;
  event: string;
  done: number;
  total: number | null;
  passed: number;
  failed: number;
  errors: number;
  elapsed_seconds: number;
}

export interface Progress {
  text: string;
  data: ProgressData;
}

function n(v: unknown): number | undefined {
  return typeof v === "number" && Number.isFinite(v) ? v : undefined;
}

export interface ProgressOptions {
  /** The run's `time_budget_seconds`, when it has one. */
  budgetSeconds?: number | undefined;
  /** The clock, ms (tests give their own). */
  now?: () => number;
}

export class ProgressTracker {
  private done = 0;
  private total: number | null = null;
  private passed = 0;
  private failed = 0;
  private errors = 0;
  private readonly now: () => number;
  private readonly started: number;
  private readonly budgetSeconds: number | undefined;
  /** Items the run resumed from its checkpoint (not this run's pace). */
  private resumed = 0;
  /** When this run's first item started, ms; and when the runner said it started, with its budget left then. */
  private firstItemAt: number | null = null;
  private runStart: { at: number; budgetLeft: number | undefined } | null = null;
  private estimate: RunEstimate | null = null;

  constructor(
    private readonly runId: string,
    private readonly benchmark: string,
    options: ProgressOptions = {},
  ) {
    this.now = options.now ?? Date.now;
    this.started = this.now();
    this.budgetSeconds = options.budgetSeconds;
  }

  /** The estimate now: from the items left and the prior, or this run's pace once an item finished. */
  private reestimate(): RunEstimate | null {
    if (this.total === null) return null;
    const now = this.now();
    const doneHere = this.done - this.resumed;
    const spent = this.runStart
      ? (this.budgetSeconds ?? 0) -
        (this.runStart.budgetLeft ?? this.budgetSeconds ?? 0) +
        (now - this.runStart.at) / 1000
      : (now - this.started) / 1000;
    this.estimate = estimateRun({
      benchmark: this.benchmark,
      itemsLeft: this.total - this.done,
      measured:
        this.firstItemAt !== null && doneHere > 0
          ? { done: doneHere, seconds: (now - this.firstItemAt) / 1000 }
          : undefined,
      budgetSeconds: this.budgetSeconds,
      budgetSpentSeconds: spent,
    });
    return this.estimate;
  }

  private data(event: string, extra: Record<string, unknown> = {}): ProgressData {
    return {
      run_id: this.runId,
      benchmark: this.benchmark,
      event,
      done: this.done,
      total: this.total,
      passed: this.passed,
      failed: this.failed,
      errors: this.errors,
      elapsed_seconds: Math.round((this.now() - this.started) / 100) / 10,
      ...(this.estimate ? { estimate: this.estimate } : {}),
      ...extra,
    };
  }

  private of(): string {
    return this.total === null ? `${this.done}` : `${this.done}/${this.total}`;
  }

  /** "2 passed, 1 failed, 0 errored": failed is the participant's, errored ours. */
  private counts(): string {
    return `${this.passed} passed, ${this.failed} failed, ${this.errors} errored`;
  }

  private runStarted(ev: RunStartedEvent): Progress {
    this.total = n(ev.total) ?? this.total;
    this.resumed = n(ev.resumed) ?? 0;
    this.done = this.resumed;
    this.runStart = { at: this.now(), budgetLeft: n(ev.budget_left_seconds) };
    const asked = n(ev.samples_requested);
    const available = n(ev.dataset_items);
    const capped =
      asked !== undefined && available !== undefined
        ? ` (samples ${asked} exceeds the dataset's ${available} item(s): all ${available} run)`
        : "";
    const resumed = this.resumed > 0 ? `, ${this.resumed} resumed from the checkpoint` : "";
    const estimate = this.reestimate();
    return {
      text:
        `Run ${this.runId} started: ${this.total ?? "?"} item(s) of ${this.benchmark}${capped}${resumed}` +
        (estimate ? `; ${describeEstimate(estimate, this.benchmark)}` : ""),
      data: this.data(ev.event, capped ? { samples_requested: asked, dataset_items: available } : {}),
    };
  }

  private runFinished(ev: RunFinishedEvent): Progress {
    const notRun = n(ev.not_run);
    if (ev.partial === true && notRun !== undefined)
      return {
        text:
          `Run ${this.runId} ended partial: its time budget of ${this.budgetSeconds ?? "?"} s ran out; ` +
          `${this.of()} judged, ${this.counts()}, ${notRun} not run (not counted as failures; ` +
          `a request with run_id ${this.runId} and resume: true runs them); building the evaluation bundle`,
        data: this.data(ev.event, { partial: true, not_run: notRun }),
      };
    return {
      text: `Run ${this.runId} finished: ${this.of()} done, ${this.counts()}; building the evaluation bundle`,
      data: this.data(ev.event),
    };
  }

  /** Apply one event; returns the status to publish. */
  apply(ev: RunnerEvent): Progress {
    switch (ev.event) {
      case "run_started":
        return this.runStarted(ev);
      case "task_started":
        this.firstItemAt ??= this.now();
        this.total = n(ev.total) ?? this.total;
        return {
          text: `Evaluating ${ev.task_id} (${this.done + 1}${this.total === null ? "" : `/${this.total}`})`,
          data: this.data(ev.event, { task_id: ev.task_id }),
        };
      case "task_finished": {
        this.done = n(ev.done) ?? this.done + 1;
        this.total = n(ev.total) ?? this.total;
        if (n(ev.passed_so_far) !== undefined) this.passed = n(ev.passed_so_far) ?? this.passed;
        else if (ev.passed) this.passed++;
        if (isHarnessErrorEvent(ev)) this.errors++;
        this.failed = Math.max(0, this.done - this.passed - this.errors);
        const estimate = this.reestimate();
        const left = estimate && estimate.items_left > 0 ? `; ${roughLeft(estimate)}` : "";
        return {
          text: `${ev.task_id}: ${ev.status} — ${this.of()} done, ${this.counts()}${left}`,
          data: this.data(ev.event, { task_id: ev.task_id, status: ev.status }),
        };
      }
      case "package_started":
        return {
          text: `Package ${ev.package_id} started (#${ev.i + 1}${this.total === null ? "" : ` of ${this.total}`})`,
          data: this.data(ev.event, { package_id: ev.package_id }),
        };
      case "package_finished": {
        this.done++;
        const bad = (typeof ev.error === "string" && ev.error.length > 0) || ev.timed_out === true;
        if (typeof ev.error === "string" && ev.error.length > 0) this.errors++;
        else if (bad) this.failed++;
        else this.passed++;
        const how = ev.timed_out ? "timed out" : bad ? `error: ${String(ev.error)}` : "ok";
        return {
          text: `Package ${ev.package_id} finished (${how}) — ${this.of()} done`,
          data: this.data(ev.event, { package_id: ev.package_id }),
        };
      }
      case "turn":
        return { text: ev.status, data: this.data(ev.event, { task_id: ev.task_id, turn: ev.turn }) };
      case "checkpoint_written":
        return { text: `Checkpoint written (${this.of()} done)`, data: this.data(ev.event) };
      case "run_finished":
        return this.runFinished(ev);
      default:
        return assertNever(ev, "runner event");
    }
  }

  /** The heartbeat status while the runner is quiet. */
  heartbeat(quietMs: number): Progress {
    return {
      text: `Still running: ${this.of()} done, ${this.counts()} (no runner event for ${Math.round(quietMs / 1000)} s)`,
      data: this.data("heartbeat"),
    };
  }

  snapshot(event: string): ProgressData {
    return this.data(event);
  }
}

/** "~3 min left (4.2 s/item measured)", with "budget ends it partial" when it will not fit. */
function roughLeft(e: RunEstimate): string {
  const pace = `${e.seconds_per_item} s/item ${e.pace === "measured" ? "measured" : "prior"}`;
  const budget = e.fits === false ? `; the time budget ends it after about ${e.items_within_budget} more` : "";
  return `${roughDuration(e.seconds_left)} left (${pace})${budget}`;
}
