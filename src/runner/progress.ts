/**
 * How a run shows progress. Not a TTY (the green agent reads our stdout):
 * one `A2A_EVENT:` line per event. A TTY (a person): a progress bar with ETA,
 * and a summary table at the end. The events file gets every event either way.
 */
import type { Writable } from "node:stream";
import cliProgress from "cli-progress";
import { formatEventLine, type RunnerEvent } from "./protocol.js";

export interface ProgressReporter {
  onEvent(event: RunnerEvent): void;
  /** Stop the display; print the summary (TTY) if one is given. */
  close(summary?: Record<string, unknown>): void;
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

/** A progress bar (with ETA and passed count) on a TTY stream; summary table at the end. */
export function ttyReporter(out: Writable): ProgressReporter {
  const bar = new cliProgress.SingleBar(
    {
      stream: out as unknown as NodeJS.WritableStream,
      format: "{benchmark} [{bar}] {value}/{total} | passed {passed} | ETA {eta_formatted} | {last}",
      hideCursor: true,
      etaBuffer: 20,
      noTTYOutput: false,
    },
    cliProgress.Presets.shades_classic,
  );
  let started = false;
  return {
    onEvent(event) {
      switch (event.event) {
        case "run_started":
          bar.start(event.total, 0, { benchmark: event.benchmark, passed: 0, last: "" });
          started = true;
          break;
        case "task_finished":
          if (started) bar.update(event.done ?? 0, { passed: event.passed_so_far ?? 0, last: `${event.task_id} ${event.status}` });
          break;
        default:
          break;
      }
    },
    close(summary) {
      if (started) bar.stop();
      if (summary) out.write(formatSummaryTable(summary));
    },
  };
}

/** Two-column text table of the scalar entries of an aggregate (nested objects flattened one level). */
export function formatSummaryTable(aggregate: Record<string, unknown>): string {
  const rows: Array<[string, string]> = [];
  for (const [key, value] of Object.entries(aggregate)) {
    if (value !== null && typeof value === "object" && !Array.isArray(value)) {
      for (const [k2, v2] of Object.entries(value as Record<string, unknown>)) rows.push([`${key}.${k2}`, show(v2)]);
    } else if (!Array.isArray(value)) {
      rows.push([key, show(value)]);
    }
  }
  const width = Math.max(6, ...rows.map(([k]) => k.length));
  const line = "-".repeat(width + 2) + "+" + "-".repeat(14);
  return ["", `${"metric".padEnd(width)}  | value`, line, ...rows.map(([k, v]) => `${k.padEnd(width)}  | ${v}`), ""].join("\n") + "\n";
}

function show(v: unknown): string {
  if (typeof v === "number") return Number.isInteger(v) ? String(v) : v.toFixed(4);
  return v === null || v === undefined ? "-" : String(v);
}
