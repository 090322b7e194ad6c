/**
 * Options are checked once, at the entry (execa's `normalizeOptions`), with
 * messages naming the option; inside the layer the types are trusted. A bad
 * option is a bug of the caller, so it throws (a start failure of a valid
 * command does not: it ends in the outcome's `spawnError`).
 */
import { BenchError } from "../util/errors.js";

/** A process option that cannot be used; `code` "E_PROCESS_OPTION". */
export class ProcessOptionError extends BenchError {
  constructor(message: string) {
    super("E_PROCESS_OPTION", message);
  }
}

/** `file` must be a non-empty string. */
export function checkFile(file: unknown): void {
  if (typeof file !== "string" || file === "")
    throw new ProcessOptionError(`file must be a non-empty string, got ${JSON.stringify(file)}`);
}

/** A duration option (ms) must be a finite number >= 0 when given. */
export function checkMs(name: string, value: number | undefined): void {
  if (value !== undefined && !(Number.isFinite(value) && value >= 0))
    throw new ProcessOptionError(`${name} must be a finite number of ms >= 0, got ${value}`);
}

/** A byte cap must be a positive integer. */
export function checkBytes(name: string, value: number): void {
  if (!(Number.isInteger(value) && value > 0))
    throw new ProcessOptionError(`${name} must be a positive integer of bytes, got ${value}`);
}
