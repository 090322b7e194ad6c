/**
 * Infrastructure failures: what our side (or the machine) broke, as opposed
 * to what the participant did. The score is the asset: a run whose
 * infrastructure failed ends with status `error` and a non-zero exit, never
 * with a score. A benchmark that finds a tool missing (pytest, bwrap, a
 * fixture it cannot set up) throws an InfrastructureError from `loadItems`,
 * `evaluate` or `endRun`; the runner stops the run on it (no further item
 * starts) and records the reason. Item rows whose `failure_mode` starts with
 * `infrastructure_` count against the run's infrastructure share (see
 * run-verdict.ts).
 */
import { BenchError } from "./errors.js";

/** Closed set of infrastructure failure codes. */
export type InfrastructureCode =
  /** The participant's agent card could not be fetched (refused, 404, timeout, TLS, bad JSON). */
  | "E_PARTICIPANT_UNREACHABLE"
  /** A program the benchmark needs is missing (pytest, bwrap, git, ...). */
  | "E_TOOLS_MISSING"
  /** The benchmark's fixtures could not be set up. */
  | "E_FIXTURES"
  /** Sandbox isolation is weaker than the run requires. */
  | "E_ISOLATION_WEAK"
  /** The benchmark needs a sandbox capability the backend lacks (src/sandbox/capabilities.ts). */
  | "E_SANDBOX_CAPABILITY"
  /** Too many items failed for infrastructure reasons. */
  | "E_INFRASTRUCTURE_SHARE";

export class InfrastructureError extends BenchError {
  declare readonly code: InfrastructureCode;
  /** What the operator should do about it (also at the end of `message`). */
  readonly fix: string | undefined;
  constructor(code: InfrastructureCode, message: string, options?: { cause?: unknown; fix?: string }) {
    super(
      code,
      options?.fix ? `${message}; fix: ${options.fix}` : message,
      options?.cause !== undefined ? { cause: options.cause } : undefined,
    );
    this.fix = options?.fix;
  }
}

/** Declare a missing program: `toolsMissing("pytest", "pip install pytest")`. */
export function toolsMissing(tool: string, fix: string, detail?: string): InfrastructureError {
  return new InfrastructureError("E_TOOLS_MISSING", `${tool} is missing${detail ? ` (${detail})` : ""}`, { fix });
}

/** Whether a row's `failure_mode` says our side failed (`infrastructure_*`). */
export function isInfrastructureFailureMode(mode: unknown): boolean {
  return typeof mode === "string" && mode.startsWith("infrastructure_");
}
