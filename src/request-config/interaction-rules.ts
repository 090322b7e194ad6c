/**
 * A run's `interaction` must be one its benchmark offers (the descriptor's
 * `interactions`), and an interactive run's episode limits come from the
 * config. Each boundary (the green agent's request, the runner's CLI, the
 * library) refuses an interaction the benchmark lacks in its own words,
 * before anything runs.
 */
import type { EpisodeLimits } from "../interactive/limits.js";
import type { AssessmentConfig, Interaction, ResolvedConfig } from "./config.js";

/**
 * The interactions a benchmark offers (its descriptor's `interactions`), undefined for a name not
 * registered. The benchmark registry gives it (`offeredInteractions`, src/benchmarks/index.ts).
 */
export type OfferedInteractions = (benchmark: string) => readonly Interaction[] | undefined;

/** The problem with `config`'s interaction, worded with `key` (the boundary's name for the key); none when fine. */
export function interactionProblems(
  offered: OfferedInteractions,
  config: Pick<AssessmentConfig, "benchmark" | "interaction" | "predictions">,
  key: string,
): string[] {
  const interactions = offered(config.benchmark);
  if (!interactions || config.interaction === undefined) return [];
  if (interactions.includes(config.interaction)) {
    // An episode is the participant acting: a predictions file cannot stand in for it.
    if (config.interaction === "interactive" && config.predictions !== undefined)
      return [
        `${key} "interactive" assesses the participant acting in the environment; it cannot score a predictions file`,
      ];
    return [];
  }
  return [
    `${key} "${config.interaction}" is not offered by benchmark "${config.benchmark}" ` +
      `(it offers: ${interactions.join(", ")})`,
  ];
}

/** The episode limits of an interactive run, from its resolved config (the schema holds the defaults). */
export function episodeLimitsOf(
  config: Pick<
    ResolvedConfig,
    "max_turns" | "episode_time_seconds" | "turn_timeout_seconds" | "command_timeout_seconds"
  >,
): EpisodeLimits {
  return {
    maxTurns: config.max_turns,
    episodeTimeS: config.episode_time_seconds,
    turnTimeoutS: config.turn_timeout_seconds,
    commandTimeoutS: config.command_timeout_seconds,
  };
}
