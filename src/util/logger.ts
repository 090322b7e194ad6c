import { createRequire } from "node:module";
import { pino, type Logger, type DestinationStream } from "pino";
import type * as PinoPretty from "pino-pretty";

/**
 * pino-pretty (with dateformat, colorette and its own helpers) is loaded only
 * when a logger pretty-prints: a server logging JSON lines, or not at all, never
 * reads it, and its load was on every agent's start-up path
 * (docs/performance-serving.md). Synchronous, as createLogger is.
 */
const loadPackage = createRequire(import.meta.url);
function prettyFactory(options: PinoPretty.PrettyOptions): (line: string) => string {
  return (loadPackage("pino-pretty") as typeof PinoPretty).prettyFactory(options);
}

export type { Logger };

/** Where log lines go: any stream-like object with a synchronous `write`. */
export interface LogSink {
  write(chunk: string): unknown;
  isTTY?: boolean;
}

export interface LoggerOptions {
  /** Component name tagged on every line (e.g. "green", "runner"). */
  component: string;
  /** Level; default from LOG_LEVEL or "info". */
  level?: string;
  /** Destination (servers: stdout; the runner: stderr or a progress display's log sink). */
  destination?: DestinationStream | NodeJS.WritableStream | LogSink;
  /** Pretty-print; default: when the destination is a TTY. */
  pretty?: boolean;
  /** Colours in pretty output; default: a TTY destination and no NO_COLOR in the environment. */
  color?: boolean;
}

/** NO_COLOR (https://no-color.org): present and not empty disables colour. */
export function colorDisabled(env: NodeJS.ProcessEnv = process.env): boolean {
  return (env["NO_COLOR"] ?? "") !== "";
}

/**
 * Create a pino logger: JSON lines by default, human-readable when writing to
 * a TTY. Pretty lines are formatted in this thread and written synchronously
 * (no transport worker), so they interleave correctly with a progress display
 * that owns the same terminal. Library code never creates its own logger; it
 * receives one.
 */
export function createLogger(options: LoggerOptions): Logger {
  const level = options.level ?? process.env["LOG_LEVEL"] ?? "info";
  const destination = options.destination ?? process.stdout;
  const isTty = Boolean((destination as { isTTY?: boolean }).isTTY);
  const pretty = options.pretty ?? isTty;
  if (pretty) {
    const format = prettyFactory({ colorize: options.color ?? (isTty && !colorDisabled()), ignore: "pid,hostname" });
    const sink: DestinationStream = { write: (line: string) => void destination.write(format(line)) };
    return pino({ level, base: { component: options.component } }, sink);
  }
  return pino({ level, base: { component: options.component } }, destination);
}

/** A logger that drops everything (tests, library callers that pass none). */
export function silentLogger(): Logger {
  return pino({ level: "silent" });
}
