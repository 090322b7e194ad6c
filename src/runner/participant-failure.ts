/**
 * The failure mode of an item whose question to the participant threw. A
 * timeout is the participant's slowness: a model failure, scored. Anything
 * else (unreachable after retries, protocol error) is infrastructure: the
 * run's infrastructure share counts it (run-verdict.ts).
 */
import { BenchError } from "../util/errors.js";

export type ParticipantFailureMode = "model_agent_timeout" | "infrastructure_participant";

/** `timedOut`: the caller's own answer deadline fired (its signal, not the participant's timeout). */
export function participantFailureMode(err: unknown, timedOut = false): ParticipantFailureMode {
  if (timedOut) return "model_agent_timeout";
  return err instanceof BenchError && err.code === "E_PARTICIPANT_TIMEOUT"
    ? "model_agent_timeout"
    : "infrastructure_participant";
}
