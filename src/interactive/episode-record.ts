/**
 * The record of one interactive episode: how it ended and what it cost. The
 * same flat shape whatever the ending (style: one flat outcome record).
 */
import type { TokenUsage } from "../a2a/shared/usage.js";

/**
 * How an episode ended:
 * - `final`: the participant said it was done (a `final`, a patch, a submit, text that is not JSON,
 *   mini-swe-agent's sentinel);
 * - `turn_limit` / `time_limit`: the episode's turns or wall-clock budget ran out;
 * - `format_errors`: three replies in a row were no valid action;
 * - `participant_error`: the participant failed (no answer in a turn's time, a transport error,
 *   an oversized reply, a task ended failed/rejected/canceled or in a state we cannot continue);
 * - `resource_limit`: the participant's commands outgrew a limit of the environment (its disk): the
 *   environment was ended, the participant's failure;
 * - `environment_error`: the environment's backend failed (ours, not the participant's);
 * - `canceled`: the caller stopped the episode (neither party's failure).
 * After every ending but `environment_error` and `canceled` the environment is graded as it stands.
 */
export type EpisodeExitStatus =
  | "final"
  | "turn_limit"
  | "time_limit"
  | "format_errors"
  | "participant_error"
  | "resource_limit"
  | "environment_error"
  | "canceled";

export const EPISODE_EXIT_STATUSES: readonly EpisodeExitStatus[] = [
  "final",
  "turn_limit",
  "time_limit",
  "format_errors",
  "participant_error",
  "resource_limit",
  "environment_error",
  "canceled",
];

export interface EpisodeRecord {
  exit_status: EpisodeExitStatus;
  /** Participant replies received (a turn that timed out is not counted). */
  turns: number;
  /** Commands run in the environment. */
  commands: number;
  /** Invalid replies in the episode (not only in a row). */
  invalid_replies: number;
  /** Seconds the commands took, summed. */
  command_seconds: number;
  /** Seconds spent waiting for the participant, summed. */
  participant_seconds: number;
  /** Wall-clock seconds of the whole episode. */
  wall_seconds: number;
  /** Output streams cut before they were sent (truncate.ts). */
  truncations: number;
  /** The participant's conversation id ("" when it never answered). */
  context_id: string;
  /** The participant's final output (`final` only). */
  final_output?: string;
  /**
   * The final output was sent as the agent's change, a diff: AgentSWE's `patch`, a submit tool's
   * `patch`, mini-swe-agent's submission (the output after its sentinel).
   */
  final_patch?: true;
  /** Why the episode ended early (`participant_error`, `resource_limit`, `environment_error`, `format_errors`): a code and a message. */
  error?: { code: string; message: string };
  /** Token usage the participant reported in its replies' metadata, summed: its word, not a measurement. */
  usage?: TokenUsage & { self_reported: true };
}
