/**
 * The `exec_result` message the participant gets after a command (or after a
 * reply that was no valid action): the streams cut by truncate.ts, the
 * elided counts, the exit code as an integer (124 for a command stopped at
 * its timeout, -1 when nothing ran), and the budget left.
 */
import { NOT_RUN_EXIT_CODE, TIMED_OUT_EXIT_CODE, type ExecResultMessage } from "./protocol.js";
import { truncateStream } from "./truncate.js";
import type { CommandOutcome } from "./episode-environment.js";

/** What is left of the episode when the message is sent. */
export interface TurnBudget {
  /** Number of the reply this message asks for. */
  turn: number;
  /** Replies allowed in the episode. */
  maxTurns: number;
  /** Milliseconds left in the episode. */
  timeLeftMs: number;
}

function budgetFields(budget: TurnBudget): Pick<ExecResultMessage, "turn" | "turns_left" | "time_left_s"> {
  return {
    turn: budget.turn,
    turns_left: Math.max(0, budget.maxTurns - budget.turn),
    time_left_s: Math.max(0, Math.floor(budget.timeLeftMs / 1000)),
  };
}

/** The exec_result for a command's outcome; `truncations` counts the streams that were cut. */
export function execResultFor(
  outcome: CommandOutcome,
  budget: TurnBudget,
): { message: ExecResultMessage; truncations: number } {
  const stdout = truncateStream(outcome.stdout);
  const stderr = truncateStream(outcome.stderr);
  const exitCode = outcome.exitCode ?? (outcome.timedOut ? TIMED_OUT_EXIT_CODE : NOT_RUN_EXIT_CODE);
  const message: ExecResultMessage = {
    kind: "exec_result",
    exit_code: exitCode,
    stdout: stdout.text,
    stderr: stderr.text,
    ...(outcome.timedOut ? { timed_out: true } : {}),
    ...(stdout.elidedChars > 0 ? { stdout_elided_chars: stdout.elidedChars } : {}),
    ...(stderr.elidedChars > 0 ? { stderr_elided_chars: stderr.elidedChars } : {}),
    ...budgetFields(budget),
  };
  return { message, truncations: (stdout.elidedChars > 0 ? 1 : 0) + (stderr.elidedChars > 0 ? 1 : 0) };
}

/** The exec_result answering a reply that was no valid action: nothing ran, `error` says why. */
export function invalidReplyResult(reason: string, budget: TurnBudget, invalidInARow: number): ExecResultMessage {
  return {
    kind: "exec_result",
    exit_code: NOT_RUN_EXIT_CODE,
    stdout: "",
    stderr: `invalid reply (${invalidInARow} in a row; 3 end the episode): ${reason}`,
    error: reason,
    ...budgetFields(budget),
  };
}
