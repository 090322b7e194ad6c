/**
 * `--log-level`: pino's levels, checked at the entry (a pure parse, a usage error with a did-you-mean for a
 * typo). The flag wins over env LOG_LEVEL, which stays the default.
 */
import { UsageError } from "./errors.js";
import { didYouMean } from "./suggest.js";

/** The levels a logger takes, most to least severe; `silent` logs nothing. */
export const LOG_LEVELS = ["fatal", "error", "warn", "info", "debug", "trace", "silent"] as const;
export type LogLevel = (typeof LOG_LEVELS)[number];

/** The parseArgs entry of the flag. */
export const LOG_LEVEL_OPTION = { "log-level": { type: "string" } } as const;

/** Usage line of the flag. */
export const LOG_LEVEL_USAGE = `  --log-level L    ${LOG_LEVELS.join("|")} (default: env LOG_LEVEL, else info)`;

/** The flag's value checked; undefined when it was not given. Throws UsageError. */
export function parseLogLevel(raw: string | undefined): LogLevel | undefined {
  if (raw === undefined) return undefined;
  if ((LOG_LEVELS as readonly string[]).includes(raw)) return raw as LogLevel;
  throw new UsageError(
    `--log-level must be one of ${LOG_LEVELS.join(", ")}, got "${raw}"${didYouMean(raw, LOG_LEVELS)}`,
  );
}
