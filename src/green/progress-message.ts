/**
 * Turn runner events into progress: a human sentence for the `working` status
 * text and a DataPart `{done, total, passed, ...}` for machines.
 */
import { isHarnessErrorEvent, type RunnerEvent } from "../runner/protocol.js";
import { assertNever } from "../util/errors.js";

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

export class ProgressTracker {
  private done = 0;
  private total: number | null = null;
  private passed = 0;
  private failed = 0;
  private errors = 0;
  private readonly started = Date.now();

  constructor(
    private readonly runId: string,
    private readonly benchmark: string,
  ) {}

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
      elapsed_seconds: Math.round((Date.now() - this.started) / 100) / 10,
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

  /** Apply one event; returns the status to publish. */
  apply(ev: RunnerEvent): Progress {
    switch (ev.event) {
      case "run_started": {
        this.total = n(ev.total) ?? this.total;
        const asked = n(ev.samples_requested);
        const available = n(ev.dataset_items);
        const capped =
          asked !== undefined && available !== undefined
            ? ` (samples ${asked} exceeds the dataset's ${available} item(s): all ${available} run)`
            : "";
        return {
          text: `Run ${this.runId} started: ${this.total ?? "?"} item(s) of ${this.benchmark}${capped}`,
          data: this.data(ev.event, capped ? { samples_requested: asked, dataset_items: available } : {}),
        };
      }
      case "task_started":
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
        return {
          text: `${ev.task_id}: ${ev.status} — ${this.of()} done, ${this.counts()}`,
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
        return {
          text: `Run ${this.runId} finished: ${this.of()} done, ${this.counts()}; building the evaluation bundle`,
          data: this.data(ev.event),
        };
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
