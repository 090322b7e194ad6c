/**
 * The limits of one interactive episode and the clamp on a requested command
 * timeout. Defaults follow the field: mini-swe-agent runs 60 s per command
 * and at most 250 steps; RDI's green clamps a request to 1–300 s; the
 * AgentBeats gateway drops a proxied request after 300 s, so one participant
 * turn gets at most that long.
 */
import { BenchError } from "../util/errors.js";

export const DEFAULT_MAX_TURNS = 100;
/** Most turns an episode may be given (mini-swe-agent's step limit). */
export const MAX_MAX_TURNS = 250;
export const DEFAULT_EPISODE_TIME_S = 1800;
/** Seconds the participant has to answer one message (the gateway's per-request limit). */
export const DEFAULT_TURN_TIMEOUT_S = 300;
export const DEFAULT_COMMAND_TIMEOUT_S = 60;
export const MIN_COMMAND_TIMEOUT_S = 1;
/** Largest command timeout a participant may ask for, seconds (RDI's clamp). */
export const MAX_COMMAND_TIMEOUT_S = 300;
/**
 * Longest command accepted, UTF-8 bytes. Linux refuses a single argv string over 128 KiB (MAX_ARG_STRLEN),
 * and a backend passes the command as one; a longer one would fail as the backend's error, so it is refused
 * as the participant's invalid reply instead (write long files in several commands).
 */
export const MAX_COMMAND_BYTES = 64 * 1024;
/** Invalid replies in a row that end the episode (`format_errors`). */
export const MAX_INVALID_IN_A_ROW = 3;

/** Limits of one episode, all resolved. */
export interface EpisodeLimits {
  /** Participant replies allowed, the first included. */
  maxTurns: number;
  /** Wall-clock budget of the whole episode, seconds. */
  episodeTimeS: number;
  /** Time the participant has to answer one message, seconds. */
  turnTimeoutS: number;
  /** Timeout of a command whose request names none, seconds. */
  commandTimeoutS: number;
}

/** Bad episode limits (a caller's configuration error, named). */
export class EpisodeLimitsError extends BenchError {
  constructor(message: string) {
    super("E_EPISODE_LIMITS", message);
  }
}

function check(name: string, value: number, min: number, max: number): number {
  if (!Number.isInteger(value) || value < min || value > max) {
    throw new EpisodeLimitsError(`${name} must be an integer from ${min} to ${max}, got ${String(value)}`);
  }
  return value;
}

/** `given` with defaults filled in; throws EpisodeLimitsError naming the first limit out of bounds. */
export function resolveLimits(given: Partial<EpisodeLimits> = {}): EpisodeLimits {
  return {
    maxTurns: check("maxTurns", given.maxTurns ?? DEFAULT_MAX_TURNS, 1, MAX_MAX_TURNS),
    episodeTimeS: check("episodeTimeS", given.episodeTimeS ?? DEFAULT_EPISODE_TIME_S, 1, 24 * 3600),
    turnTimeoutS: check("turnTimeoutS", given.turnTimeoutS ?? DEFAULT_TURN_TIMEOUT_S, 1, 3600),
    commandTimeoutS: check(
      "commandTimeoutS",
      given.commandTimeoutS ?? DEFAULT_COMMAND_TIMEOUT_S,
      MIN_COMMAND_TIMEOUT_S,
      MAX_COMMAND_TIMEOUT_S,
    ),
  };
}

/**
 * The timeout a command runs with, whole seconds in 1–300: the participant's request when it is
 * a finite number or a numeric string (rounded up, then clamped), else `fallback`.
 */
export function clampCommandTimeout(requested: unknown, fallback: number = DEFAULT_COMMAND_TIMEOUT_S): number {
  const n =
    typeof requested === "number"
      ? requested
      : typeof requested === "string" && /^\s*\d+(\.\d+)?\s*$/.test(requested)
        ? Number(requested)
        : NaN;
  if (!Number.isFinite(n)) return fallback;
  return Math.min(MAX_COMMAND_TIMEOUT_S, Math.max(MIN_COMMAND_TIMEOUT_S, Math.ceil(n)));
}
