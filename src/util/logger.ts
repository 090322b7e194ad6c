import { pino, type Logger, type DestinationStream } from "pino";

export type { Logger };

export interface LoggerOptions {
  /** Component name tagged on every line (e.g. "green", "runner"). */
  component: string;
  /** Level; default from LOG_LEVEL or "info". */
  level?: string;
  /** Destination; default stderr? no: stdout for servers, caller decides. */
  destination?: DestinationStream | NodeJS.WritableStream;
  /** Pretty-print; default: when the destination is a TTY. */
  pretty?: boolean;
}

/**
 * Create a pino logger: JSON lines by default, human-readable when writing to a
 * TTY. Library code never creates its own logger; it receives one.
 */
export function createLogger(options: LoggerOptions): Logger {
  const level = options.level ?? process.env["LOG_LEVEL"] ?? "info";
  const destination = options.destination ?? process.stdout;
  const isTty = Boolean((destination as { isTTY?: boolean }).isTTY);
  const pretty = options.pretty ?? isTty;
  if (pretty) {
    return pino(
      { level, base: { component: options.component } },
      pino.transport({ target: "pino-pretty", options: { colorize: isTty, ignore: "pid,hostname" } }),
    );
  }
  return pino({ level, base: { component: options.component } }, destination as DestinationStream);
}

/** A logger that drops everything (tests, library callers that pass none). */
export function silentLogger(): Logger {
  return pino({ level: "silent" });
}
