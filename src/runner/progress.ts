/**
 * How a run shows progress. Four modes (see {@link chooseDisplayMode}):
 * - `events`: `--events` (the green agent passes it and reads stdout): one
 *   `A2A_EVENT:` line per event — the runner protocol, unchanged;
 * - `bar`: a terminal: a progress bar with ETA; log lines are printed above
 *   it (never over it), and at the end the bar gives way to the summary table;
 * - `plain`: stdout piped or redirected, or a terminal with NO_COLOR (or
 *   TERM=dumb): no ANSI at all, one progress line at most every
 *   {@link PLAIN_PROGRESS_INTERVAL_MS}, the summary table;
 * - `json`: `--json`: nothing while running; the caller prints one JSON summary.
 * The events file gets every event in every mode; the people's modes (bar,
 * plain) end with the caller's one-line summary ({@link readableSummaryLine}).
 */
import type { Writable } from "node:stream";
import { formatEventLine, isHarnessErrorEvent, type RunnerEvent } from "./protocol.js";
import { TerminalBar } from "../util/terminal-bar.js";
import { colorDisabled } from "../util/logger.js";

export interface ProgressReporter {
  onEvent(event: RunnerEvent): void;
  /** Stop the display; print the summary (bar/plain) if one is given. Idempotent. */
  close(summary?: Record<string, unknown>): void;
}

export type DisplayMode = "events" | "bar" | "plain" | "json";

/** Plain mode: at most one progress line per this many ms (the first and the last always print). */
export const PLAIN_PROGRESS_INTERVAL_MS = 2000;

/**
 * The mode for a stdout stream, the environment, `--json` and `--events`. A pipe is read by a
 * person (`| tee log`, a CI log) unless `--events` says a program reads it.
 */
export function chooseDisplayMode(
  stdout: { isTTY?: boolean },
  env: NodeJS.ProcessEnv,
  json: boolean,
  events = false,
): DisplayMode {
  if (json) return "json";
  if (events) return "events";
  if (!stdout.isTTY) return "plain";
  return colorDisabled(env) || env["TERM"] === "dumb" ? "plain" : "bar";
}

/** `A2A_EVENT:{json}` lines on `out`. */
export function eventLineReporter(out: Writable): ProgressReporter {
  return {
    onEvent(event) {
      out.write(formatEventLine(event));
    },
    close() {},
  };
}

/** Counts shared by the human displays: items done, and of them passed, failed (the participant's) and errored (ours). */
export class Tally {
  benchmark = "";
  total = 0;
  done = 0;
  passed = 0;
  errored = 0;
  /** Items asked for (`samples`) beyond the dataset's, when the run says so. */
  capped: { requested: number; available: number } | undefined;
  last = "";
  readonly startedAt: number;
  constructor(private readonly now: () => number) {
    this.startedAt = now();
  }
  /** Apply an event; true when it moved the count. */
  apply(event: RunnerEvent): boolean {
    switch (event.event) {
      case "run_started":
        this.benchmark = event.benchmark;
        this.total = event.total;
        if (typeof event["samples_requested"] === "number" && typeof event["dataset_items"] === "number")
          this.capped = { requested: event["samples_requested"], available: event["dataset_items"] };
        return true;
      case "task_finished":
        this.done = event.done ?? this.done + 1;
        this.passed = event.passed_so_far ?? this.passed + (event.passed ? 1 : 0);
        if (isHarnessErrorEvent(event)) this.errored++;
        if (typeof event.total === "number") this.total = event.total;
        this.last = `${event.task_id} ${event.status}`;
        return true;
      case "package_finished":
        this.done++;
        if (!event.error && !event.timed_out) this.passed++;
        else if (event.error) this.errored++;
        this.last = `${event.package_id} ${event.timed_out ? "timed out" : event.error ? "error" : "ok"}`;
        return true;
      default:
        return false;
    }
  }
  /** Done items the participant failed (neither passed nor an error of ours). */
  get failed(): number {
    return Math.max(0, this.done - this.passed - this.errored);
  }
  /** "8 passed, 3 failed, 1 errored". */
  counts(): string {
    return `${this.passed} passed, ${this.failed} failed, ${this.errored} errored`;
  }
  /** The line saying `samples` asked for more items than the dataset has; undefined when it did not. */
  cappedLine(): string | undefined {
    if (!this.capped) return undefined;
    const { requested, available } = this.capped;
    return `${this.benchmark}: --samples ${requested} exceeds the dataset's ${available} item(s); running all ${available}`;
  }
  elapsedSeconds(): number {
    return (this.now() - this.startedAt) / 1000;
  }
  /** Remaining time from the mean so far, seconds; undefined before the first item. */
  etaSeconds(): number | undefined {
    if (this.done === 0 || this.total === 0) return undefined;
    return (this.elapsedSeconds() / this.done) * Math.max(0, this.total - this.done);
  }
  finalLine(): string {
    return `${this.benchmark}: ${this.done}/${this.total} done, ${this.counts()} in ${this.elapsedSeconds().toFixed(1)} s`;
  }
}

/** A progress bar (with ETA and passed count) on a TTY; the summary table at the end. */
export function barReporter(out: Writable, bar: TerminalBar, now: () => number = Date.now): ProgressReporter {
  const tally = new Tally(now);
  let closed = false;
  return {
    onEvent(event) {
      if (closed || !tally.apply(event)) return;
      const payload = {
        benchmark: tally.benchmark,
        passed: tally.passed,
        failed: tally.failed,
        errored: tally.errored,
        last: tally.last,
      };
      if (event.event === "run_started") {
        const capped = tally.cappedLine();
        if (capped !== undefined) bar.log(capped);
        bar.start(tally.total, 0, payload);
      } else bar.update(tally.done, payload);
    },
    close(summary) {
      if (closed) return;
      closed = true;
      bar.stop();
      // A run that finished no item has no count and no table to show (its summary line says why).
      if (tally.done === 0) return;
      out.write(`${tally.finalLine()}\n`);
      if (summary) out.write(formatSummaryTable(summary));
    },
  };
}

/** The bar line of {@link barReporter}. */
export const RUN_BAR_FORMAT =
  "{benchmark} [{bar}] {value}/{total} | passed {passed} failed {failed} errored {errored} | ETA {eta_formatted} | {last}";

/** Plain lines, no ANSI, at most one per `intervalMs` (first and last always); the summary table at the end. */
export function plainReporter(
  out: Writable,
  intervalMs = PLAIN_PROGRESS_INTERVAL_MS,
  now: () => number = Date.now,
): ProgressReporter {
  const tally = new Tally(now);
  let lastLineAt = -Infinity;
  let printedDone = -1;
  let closed = false;
  const line = (): void => {
    const eta = tally.etaSeconds();
    out.write(
      `${tally.benchmark}: ${tally.done}/${tally.total} done, ${tally.counts()}${eta === undefined ? "" : `, ETA ${Math.ceil(eta)} s`}\n`,
    );
    lastLineAt = now();
    printedDone = tally.done;
  };
  return {
    onEvent(event) {
      if (closed || !tally.apply(event)) return;
      if (event.event === "run_started") {
        out.write(`${tally.benchmark}: ${tally.total} item(s)\n`);
        const capped = tally.cappedLine();
        if (capped !== undefined) out.write(capped + "\n");
        lastLineAt = now();
        return;
      }
      if (tally.done === tally.total || now() - lastLineAt >= intervalMs) line();
    },
    close(summary) {
      if (closed) return;
      closed = true;
      if (tally.done === 0) return; // no item finished: no count, no table (the summary line says why)
      if (printedDone !== tally.done) line();
      if (summary) out.write(formatSummaryTable(summary));
    },
  };
}

/** `--json`: shows nothing; keeps the summary for the caller to print. */
export function summaryCollector(): ProgressReporter & { readonly summary: Record<string, unknown> | undefined } {
  let summary: Record<string, unknown> | undefined;
  return {
    onEvent() {},
    close(s) {
      summary ??= s;
    },
    get summary() {
      return summary;
    },
  };
}

/** Counters of an aggregate that count completions, not tasks, when a task has `n` of them (HumanEval's pass@k). */
const COMPLETION_COUNTERS = new Set(["passed", "failed", "timeouts", "errors", "total"]);

/**
 * Two-column text table of the scalar entries of an aggregate (nested objects flattened one level). When the
 * aggregate counts both tasks and their `n` completions, the completion counters say so (`completions.passed`),
 * so a count of tasks and one of completions are never read as the same thing.
 */
export function formatSummaryTable(aggregate: Record<string, unknown>): string {
  const rows: Array<[string, string]> = [];
  const perCompletion = typeof aggregate["tasks"] === "number" && typeof aggregate["n"] === "number";
  for (const [rawKey, value] of Object.entries(aggregate)) {
    const key = perCompletion && COMPLETION_COUNTERS.has(rawKey) ? `completions.${rawKey}` : rawKey;
    if (value !== null && typeof value === "object" && !Array.isArray(value)) {
      for (const [k2, v2] of Object.entries(value as Record<string, unknown>)) rows.push([`${key}.${k2}`, show(v2)]);
    } else if (!Array.isArray(value)) {
      rows.push([key, show(value)]);
    }
  }
  const width = Math.max(6, ...rows.map(([k]) => k.length));
  const line = "-".repeat(width + 2) + "+" + "-".repeat(14);
  return (
    ["", `${"metric".padEnd(width)}  | value`, line, ...rows.map(([k, v]) => `${k.padEnd(width)}  | ${v}`), ""].join(
      "\n",
    ) + "\n"
  );
}

function show(v: unknown): string {
  if (typeof v === "number") return Number.isInteger(v) ? String(v) : v.toFixed(4);
  if (v === null || v === undefined) return "-";
  if (typeof v === "string") return v;
  // Booleans and nested metrics (objects, arrays) print as JSON, not as "[object Object]".
  return JSON.stringify(v) ?? "-";
}
