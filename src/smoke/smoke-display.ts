/**
 * What the smoke client shows while an assessment streams. The green agent
 * publishes a status update per runner event; shown as they come, that is a
 * screen of near-identical lines (a `task_started` per item, all at once
 * with concurrency, and a `Checkpoint written` after each item). So:
 * - per-item bookkeeping (`task_started`, `checkpoint_written`) is never a line;
 * - the count comes from the update's DataPart (`done`/`total`/`passed`),
 *   not from the text;
 * - a line equal to the one before is not repeated.
 * Modes: `bar` (a terminal: one progress bar, other lines printed above it),
 * `plain` (not a terminal, or NO_COLOR: no ANSI, finished items at most one
 * line per {@link PLAIN_ITEM_INTERVAL_MS}), `json` (plain lines on stderr,
 * one JSON summary on stdout at the end).
 */
import type { Writable } from "node:stream";
import { TerminalBar } from "../util/terminal-bar.js";
import { colorDisabled } from "../util/logger.js";
import type { ProgressUpdate } from "./assessment-stream.js";

/** Plain mode: at most one finished-item line per this many ms (the last item always prints). */
export const PLAIN_ITEM_INTERVAL_MS = 2000;

export type SmokeDisplayMode = "bar" | "plain" | "json";

export interface SmokeDisplay {
  /** A line of the client itself (`[smoke] …`). */
  say(line: string): void;
  /** A status update, `elapsedS` seconds after the request was sent. */
  update(u: ProgressUpdate, elapsedS: number): void;
  /** The result lines (`run_id=…`, `metrics.…`, `smoke_ok=…`); not shown in json mode. */
  result(lines: readonly string[]): void;
  /** The machine-readable summary; printed (one line on stdout) in json mode only. */
  summary(value: Record<string, unknown>): void;
  /** End of the stream: the bar gives way to plain lines. Idempotent. */
  endProgress(): void;
}

export function chooseSmokeDisplayMode(
  stdout: { isTTY?: boolean },
  env: NodeJS.ProcessEnv,
  json: boolean,
): SmokeDisplayMode {
  if (json) return "json";
  return stdout.isTTY && !colorDisabled(env) && env["TERM"] !== "dumb" ? "bar" : "plain";
}

type Kind = "quiet" | "item" | "notable";

function kindOf(u: ProgressUpdate): Kind {
  switch (u.data?.["event"]) {
    case "task_started":
    case "turn":
    case "package_started":
    case "checkpoint_written":
      return "quiet";
    case "task_finished":
    case "package_finished":
      return "item";
    default:
      return "notable";
  }
}

const num = (v: unknown): number | undefined => (typeof v === "number" && Number.isFinite(v) ? v : undefined);

/** States that end a task without a result: their reason is said once, by the closing ✗ line. */
const UNSUCCESSFUL_END = new Set(["failed", "rejected", "canceled"]);

function statusLine(u: ProgressUpdate, elapsedS: number): string {
  const text = u.text && !UNSUCCESSFUL_END.has(u.state) ? `: ${u.text}` : "";
  return `${elapsedS.toFixed(1).padStart(6)}s ${u.state}${text}`;
}

/**
 * The display for `mode`: `stdout` gets the result (and the bar), `stderr`
 * the plain lines in json mode. `now` is injectable for tests.
 */
export function createSmokeDisplay(
  mode: SmokeDisplayMode,
  streams: { stdout: Writable; stderr?: Writable },
  now: () => number = Date.now,
): SmokeDisplay {
  const lines = mode === "json" ? (streams.stderr ?? streams.stdout) : streams.stdout;
  const bar =
    mode === "bar"
      ? new TerminalBar(streams.stdout, {
          format: "[smoke] [{bar}] {value}/{total} | passed {passed} failed {failed} errored {errored} | {last}",
        })
      : undefined;
  const print = (line: string): void => {
    if (bar) bar.log(line);
    else lines.write(line + "\n");
  };
  let lastText: string | undefined;
  let lastItemAt = -Infinity;
  let barShown = false;
  return {
    say(line) {
      print(`[smoke] ${line}`);
    },
    update(u, elapsedS) {
      const kind = kindOf(u);
      const done = num(u.data?.["done"]);
      const total = num(u.data?.["total"]);
      const passed = num(u.data?.["passed"]) ?? 0;
      const failed = num(u.data?.["failed"]) ?? 0;
      const errored = num(u.data?.["errors"]) ?? 0;
      if (bar && done !== undefined && total !== undefined && total > 0) {
        const payload = { passed, failed, errored, last: kind === "quiet" ? "" : (u.text ?? "") };
        if (barShown) bar.update(done, payload);
        else bar.start(total, done, payload);
        barShown = true;
      }
      if (kind === "quiet") return;
      const text = `${u.state}: ${u.text ?? ""}`;
      if (text === lastText) return;
      if (kind === "item") {
        if (bar) return; // the bar shows the count and the last item
        const last = done !== undefined && total !== undefined && done >= total;
        if (!last && now() - lastItemAt < PLAIN_ITEM_INTERVAL_MS) return;
        lastItemAt = now();
      }
      lastText = text;
      print(`[smoke] ${statusLine(u, elapsedS)}`);
    },
    result(resultLines) {
      if (mode === "json") return;
      for (const l of resultLines) print(l);
    },
    summary(value) {
      if (mode === "json") streams.stdout.write(JSON.stringify(value) + "\n");
    },
    endProgress() {
      bar?.stop();
    },
  };
}
