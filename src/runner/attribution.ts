/**
 * The one rule of attribution, for every benchmark:
 *
 * 1. A judged verdict is final. What the harness does after judging (removing the item's trees, closing its
 *    environment, writing) cannot change it: {@link keepVerdict} runs that work, reports its failure (logged,
 *    with its code) and returns the verdict as it was.
 * 2. Whatever the participant's code or replies provoke is the participant's failure, with the participant's
 *    label, counted in every rate. An item is left out of a rate (status `error`) only when the harness proved
 *    the failure its own: its failure mode is `infrastructure_*`. A row or sample with status `error` and any
 *    other failure mode (`model_no_code`, `model_participant_error`, ...) is a failure: {@link attributedStatus}
 *    makes it `failed`, so no rate, count or status line shows it as an error.
 * 3. An `infrastructure_sandbox` failure is the harness's only while the harness cannot show otherwise: when
 *    the same sandbox runs a trivial program (and opens an environment, where the run used them) after the
 *    items (sandbox-canary.ts), the sandbox was sound and the participant's program broke it (`kill -STOP -1`,
 *    killing its own server, filling its tree). Such rows and samples get the participant's label
 *    {@link PARTICIPANT_BROKE_SANDBOX} and count as failures in every rate ({@link attributeRow}).
 *
 * The runner applies 3 to every row when the run ends, before any aggregate sees the rows, and counts an item
 * as an error in every tally and status line by its failure mode alone (protocol.ts `isHarnessErrorEvent`), so a
 * benchmark whose own vocabulary says `error` for a participant's failure (HumanEval's `model_exception`, SPARC's
 * runtime errors) is still shown as failed. Benchmarks apply 2 where no status of their own names the failure
 * (no code, no answer) and 1 around their clean-ups.
 */
import type { ItemResult } from "./benchmark.js";
import { isInfrastructureFailureMode } from "../util/infrastructure-error.js";
import { SANDBOX_FAILURE_MODE } from "./sandbox-canary.js";

/** The participant's label for a sandbox failure its own program caused (the sandbox was shown sound). */
export const PARTICIPANT_BROKE_SANDBOX = "model_broke_sandbox";

/** Whether a failure mode says the harness proved the failure its own (then, and only then, out of the rates). */
export function isHarnessFailure(failureMode: unknown): boolean {
  return isInfrastructureFailureMode(failureMode);
}

/** The status of a row or sample under the rule: `error` only for the harness's own failures, else `failed`. */
export function attributedStatus<S extends string>(status: S, failureMode: unknown): S | "failed" {
  return status === "error" && !isHarnessFailure(failureMode) ? "failed" : status;
}

/** A row with {@link attributedStatus} applied (the same object when nothing changes). */
export function attributeStatus<R extends ItemResult>(row: R): R {
  const status = attributedStatus(row.status, row.failure_mode);
  return status === row.status ? row : { ...row, status };
}

/** One row or sample, relabelled when the sandbox was shown sound (see rule 3). */
function relabelled<T extends { status?: unknown; failure_mode?: unknown }>(entry: T): T {
  if (entry.failure_mode !== SANDBOX_FAILURE_MODE) return entry;
  return {
    ...entry,
    failure_mode: PARTICIPANT_BROKE_SANDBOX,
    ...(entry.status === "error" ? { status: "failed" } : {}),
  };
}

/**
 * A row once the run's sandbox was judged: with `sandboxSound`, its `infrastructure_sandbox` failures (the row's
 * own and those of its `samples`) become {@link PARTICIPANT_BROKE_SANDBOX}, status `failed`. Pure.
 */
export function attributeRow<R extends ItemResult>(row: R, sandboxSound: boolean): R {
  if (!sandboxSound) return row;
  const samples = row["samples"];
  const out = relabelled(row);
  if (!Array.isArray(samples)) return out;
  return {
    ...out,
    samples: samples.map((s: unknown) =>
      s !== null && typeof s === "object" ? relabelled(s as { failure_mode?: unknown }) : s,
    ),
  };
}

/**
 * Run `cleanup` after a verdict was judged and return the verdict unchanged, whatever the clean-up does: a
 * failure (a tree that stays, an environment that does not close) goes to `report`, never into the verdict.
 */
export async function keepVerdict<T>(
  verdict: T,
  cleanup: () => Promise<unknown>,
  report: (err: Error) => void,
): Promise<T> {
  try {
    await cleanup();
  } catch (e) {
    report(e instanceof Error ? e : new Error(String(e)));
  }
  return verdict;
}
