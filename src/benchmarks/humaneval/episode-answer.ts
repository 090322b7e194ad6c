/**
 * How one interactive sample's episode (episode.ts) becomes a HumanEval
 * answer and the episode's fields on its sample record.
 *
 * The line between the participant's failures and ours is the episode's own
 * (src/interactive/episode-record.ts): an episode that ended without `final`
 * by the participant's doing is a sample with no answer, scored 0
 * (`turn_limit` → `model_turn_limit`, `time_limit` or a turn it did not answer
 * in time → `model_agent_timeout`, replies that were no action or a failed
 * task → `model_participant_error`, a limit of the environment its commands
 * broke → `model_resource_limit`); `environment_error` and `canceled` are
 * ours (`infrastructure_sandbox`), never a score.
 */
import type { TokenUsage } from "../../a2a/shared/usage.js";
import type { EpisodeRecord } from "../../interactive/episode-record.js";
import type { FailureMode } from "./classify.js";
import type { ExtractedCode } from "../scoring/extract-code.js";
import type { SampleEpisode } from "./episode.js";
import type { EpisodeSampleFields } from "./row.js";

/** An interactive sample's answer, in the shape definition.ts grades. */
export interface EpisodeAnswer {
  extracted: ExtractedCode | null;
  agentSeconds: number;
  failure: { mode: FailureMode; message: string } | null;
  usage?: TokenUsage;
  episode: SampleEpisode;
}

/** The failure mode of an episode that ended without an answer by the participant's doing. */
export function noAnswerMode(record: EpisodeRecord): FailureMode {
  switch (record.exit_status) {
    case "turn_limit":
      return "model_turn_limit";
    case "resource_limit":
      return "model_resource_limit";
    case "time_limit":
      return "model_agent_timeout";
    case "participant_error":
      return record.error?.code === "E_PARTICIPANT_TIMEOUT" ? "model_agent_timeout" : "model_participant_error";
    case "format_errors":
      return "model_participant_error";
    default:
      // `final` with no readable answer (its solution file gone, huge, not a file).
      return "model_no_code";
  }
}

function withoutFlag(usage: TokenUsage & { self_reported: true }): TokenUsage {
  const { self_reported: _flag, ...rest } = usage;
  return rest;
}

/** The answer graded for a sample's episode; `agentSeconds` is the episode's whole time. */
export function answerOfEpisode(episode: SampleEpisode, agentSeconds: number): EpisodeAnswer {
  const r = episode.record;
  const usage = r.usage ? { usage: withoutFlag(r.usage) } : {};
  const base = { agentSeconds, episode, ...usage };
  if (episode.infraError !== undefined)
    return { ...base, extracted: null, failure: { mode: "infrastructure_sandbox", message: episode.infraError } };
  if (episode.noAnswer !== undefined)
    return { ...base, extracted: null, failure: { mode: noAnswerMode(r), message: episode.noAnswer } };
  return { ...base, extracted: episode.extracted, failure: null };
}

/** The episode's fields on the sample record (`$defs/humaneval_sample`). */
export function episodeSampleFields(episode: SampleEpisode): EpisodeSampleFields {
  const r = episode.record;
  return {
    exit_status: r.exit_status,
    turns: r.turns,
    commands: r.commands,
    command_seconds: r.command_seconds,
    participant_seconds: r.participant_seconds,
    truncations: r.truncations,
    trajectory: episode.trajectory,
    answer_source: episode.answerSource,
    ...(r.error ? { episode_error: r.error } : {}),
  };
}
