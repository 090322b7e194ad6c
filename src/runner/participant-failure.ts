/**
 * The failure mode of an item whose question to the participant threw.
 *
 * The line between the participant's failures and ours is its agent card: the
 * runner fetches it before the first item (Participant.check), and a card that
 * cannot be had stops the run as ours (InfrastructureError, no score). After
 * that, whatever the participant's side does to a question — no answer in time
 * (`model_agent_timeout`), a malformed, oversized or too deeply nested reply, a JSON-RPC or HTTP
 * error, a reset connection (`model_participant_error`) — is its failure: the
 * item fails and the run is scored. Were these ours, a participant could void
 * any run it was losing by answering garbage to a tenth of the items.
 * Anything else thrown (not a ParticipantError: a bug on our side) stays
 * `infrastructure_participant` and counts against the run (run-verdict.ts).
 */
import { BenchError } from "../util/errors.js";

export type ParticipantFailureMode = "model_agent_timeout" | "model_participant_error" | "infrastructure_participant";

/**
 * Failure modes that are the participant's replies going wrong; their count is the aggregate's
 * `participant_errors` (run-benchmark.ts), so an operator sees a participant in trouble.
 */
export const PARTICIPANT_ERROR_MODES: ReadonlySet<string> = new Set(["model_agent_timeout", "model_participant_error"]);

/** Codes of the participant client's errors that are the participant's doing (a2a/client/participant-client.ts). */
const PARTICIPANT_CAUSED = new Set([
  "E_PARTICIPANT_TRANSPORT",
  "E_PARTICIPANT_REPLY_TOO_LARGE",
  "E_PARTICIPANT_REPLY_TOO_DEEP",
]);

/** `timedOut`: the caller's own answer deadline fired (its signal, not the participant's timeout). */
export function participantFailureMode(err: unknown, timedOut = false): ParticipantFailureMode {
  if (timedOut) return "model_agent_timeout";
  if (!(err instanceof BenchError)) return "infrastructure_participant";
  if (err.code === "E_PARTICIPANT_TIMEOUT") return "model_agent_timeout";
  return PARTICIPANT_CAUSED.has(err.code) ? "model_participant_error" : "infrastructure_participant";
}

/** Sum of the {@link PARTICIPANT_ERROR_MODES} counts in a failure-mode tally. */
export function countParticipantErrors(failureModes: Readonly<Record<string, number>>): number {
  let n = 0;
  for (const [mode, count] of Object.entries(failureModes)) if (PARTICIPANT_ERROR_MODES.has(mode)) n += count;
  return n;
}
