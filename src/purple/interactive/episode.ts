/**
 * One interactive episode as a purple mode plays it: it answers the green's
 * `task` with its first action and each `exec_result` with the next, until
 * it sends `final`. The episode object is the per-context state the purple
 * keeps between turns (episode-store.ts).
 */
import type { TokenUsage } from "../../a2a/shared/usage.js";
import type { ExecResultMessage, TaskMessage } from "../../interactive/protocol.js";
import type { ParticipantAction } from "./assessor-message.js";

/** One turn's answer: the action, what it cost, and facts for the reply's metadata. */
export interface EpisodeStep {
  action: ParticipantAction;
  /** Tokens this turn cost (reported in the reply artifact's metadata, src/a2a/shared/usage.ts). */
  usage?: TokenUsage;
  metadata?: Record<string, unknown>;
}

/** How the green takes the episode's change, when it is not from the environment. */
export interface EpisodeStart {
  /** The change is the final output's diff only (AgentSWE: the repository is read-only to commands). */
  finalPatch?: boolean;
}

export interface Episode {
  /** The first action, answering the green's `task`. */
  start(task: TaskMessage, signal: AbortSignal, how?: EpisodeStart): Promise<EpisodeStep>;
  /** The next action, given the outcome of the last `exec_request`. */
  next(result: ExecResultMessage, signal: AbortSignal): Promise<EpisodeStep>;
}

/** A fresh episode of a mode (called once per green `task`). */
export type EpisodeFactory = () => Episode;

/** A step that ends the episode. */
export function finalStep(output?: string, metadata?: Record<string, unknown>): EpisodeStep {
  return {
    action: output === undefined ? { kind: "final" } : { kind: "final", output },
    ...(metadata ? { metadata } : {}),
  };
}
