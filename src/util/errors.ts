/**
 * Local (non-wire) errors carry a stable string `code` so callers and tests can
 * branch on the kind of failure without matching message text. Wire errors
 * (JSON-RPC numeric codes) are the SDK's business, not ours.
 */
export class BenchError extends Error {
  readonly code: string;
  constructor(code: string, message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.name = new.target.name;
    this.code = code;
  }
}

/** Bad command-line usage: the CLI prints the one-line message and exits 2. */
export class UsageError extends BenchError {
  constructor(message: string) {
    super("E_USAGE", message);
  }
}

/** Input that failed schema validation; `problems` lists every finding. */
export class ValidationError extends BenchError {
  readonly problems: string[];
  constructor(what: string, problems: string[]) {
    super("E_VALIDATION", `${what}: ${problems.join("; ")}`);
    this.problems = problems;
  }
}

/** A file could not be read or parsed. */
export class InputFileError extends BenchError {
  constructor(path: string, reason: string, options?: { cause?: unknown }) {
    super("E_INPUT_FILE", `${path}: ${reason}`, options);
  }
}

/** Exhaustiveness check for discriminated unions. */
export function assertNever(value: never, what = "value"): never {
  throw new BenchError("E_UNREACHABLE", `unexpected ${what}: ${JSON.stringify(value)}`);
}

/** Message of an unknown thrown value. */
export function errorMessage(err: unknown): string {
  return err instanceof Error ? err.message : String(err);
}
