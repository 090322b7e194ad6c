/**
 * Whether a finished run yields a score or an error. The participant's own
 * failures (wrong answer, crash, timeout, refusal: `model_*`, `timeout`, ...)
 * are scores. Our side's (`infrastructure_*` rows, or an InfrastructureError
 * that stopped the run) are not: when every evaluated item failed for
 * infrastructure reasons, or more than `max_infrastructure_failure_share` of
 * them did, the run's status is `error` and it carries the reason.
 */
import type { ItemResult } from "./benchmark.js";
import {
  InfrastructureError,
  isInfrastructureFailureMode,
  type InfrastructureCode,
} from "../util/infrastructure-error.js";

// The share limit is the config key `max_infrastructure_failure_share`, default 0.1 in
// schemas/assessment_request.schema.json (the one place it is stated). Why 10 %: a stray sandbox hiccup
// should not void a long run, but a tenth of the items missing moves a score by up to ten points.

export interface RunError {
  /** What failed on our side (the InfrastructureError's code). */
  code: InfrastructureCode;
  message: string;
}

export interface RunVerdict {
  status: "ok" | "error";
  /** Why the run is an error; null when ok. */
  error: RunError | null;
  /** Rows whose failure_mode is `infrastructure_*`. */
  infrastructure_failures: number;
  /** Rows judged (resumed ones included). */
  evaluated: number;
  /** `infrastructure_*` rows put down to the participant (its program broke a sandbox that works: sandbox-canary.ts). */
  attributed_to_participant: number;
}

export interface JudgeOptions {
  /** Failure modes to put down to the participant, not to us (e.g. `infrastructure_sandbox` when the sandbox canary works). */
  participantCaused?: ReadonlySet<string>;
}

/** Category of a failed row that names none (schemas' `other_*` family). */
export const UNCLASSIFIED_FAILURE = "other_failed";

/** Count of rows per `failure_mode`; a failed row without one counts as {@link UNCLASSIFIED_FAILURE}. */
export function countFailureModes(rows: readonly ItemResult[]): Record<string, number> {
  const modes: Record<string, number> = {};
  for (const r of rows) {
    const mode =
      typeof r.failure_mode === "string" && r.failure_mode !== ""
        ? r.failure_mode
        : r.passed
          ? null
          : UNCLASSIFIED_FAILURE;
    if (mode) modes[mode] = (modes[mode] ?? 0) + 1;
  }
  return modes;
}

function describeInfraRows(infra: readonly ItemResult[]): string {
  const modes = Object.entries(countFailureModes(infra))
    .map(([m, n]) => `${m} ×${n}`)
    .join(", ");
  const first = infra.find((r) => typeof r.error === "string" && r.error !== "");
  return `${modes}${first ? `; first: ${first.id}: ${String(first.error).slice(0, 300)}` : ""}`;
}

/** Judge a run from its rows, the share limit, and the infrastructure error that stopped it (if any). */
export function judgeRun(
  rows: readonly ItemResult[],
  maxShare: number,
  stoppedBy: InfrastructureError | null = null,
  options: JudgeOptions = {},
): RunVerdict {
  const theirs = options.participantCaused ?? new Set<string>();
  const attributed = rows.filter((r) => typeof r.failure_mode === "string" && theirs.has(r.failure_mode)).length;
  const infra = rows.filter(
    (r) => isInfrastructureFailureMode(r.failure_mode) && !theirs.has(r.failure_mode as string),
  );
  const base = { infrastructure_failures: infra.length, evaluated: rows.length, attributed_to_participant: attributed };
  if (stoppedBy) return { status: "error", error: { code: stoppedBy.code, message: stoppedBy.message }, ...base };
  if (rows.length === 0 || infra.length === 0) return { status: "ok", error: null, ...base };
  const share = infra.length / rows.length;
  if (infra.length === rows.length) {
    return {
      status: "error",
      error: {
        code: "E_INFRASTRUCTURE_SHARE",
        message: `every item (${rows.length}) failed for infrastructure reasons, not the participant's: ${describeInfraRows(infra)}`,
      },
      ...base,
    };
  }
  if (share > maxShare) {
    return {
      status: "error",
      error: {
        code: "E_INFRASTRUCTURE_SHARE",
        message:
          `${infra.length} of ${rows.length} items (${(share * 100).toFixed(1)} %) failed for infrastructure reasons, ` +
          `more than max_infrastructure_failure_share=${maxShare}: ${describeInfraRows(infra)}`,
      },
      ...base,
    };
  }
  return { status: "ok", error: null, ...base };
}
