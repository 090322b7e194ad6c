/**
 * A run that names a participant must score that participant's answers.
 * `predictions` (a samples / predictions file) and `replay_dataset_code`
 * (RedCode's own code) replace the participant: the run never asks it, yet
 * the score would be filed under its name — an unreachable participant named
 * beside a gold predictions file "earned" accuracy 1. So the two cannot be
 * given together; each boundary (the green agent's request, the runner's CLI)
 * refuses them in its own words.
 */
import type { AssessmentConfig } from "./config.js";

/** Config keys that replace the participant's answers, and whether `config` sets them. */
const REPLACES_PARTICIPANT: ReadonlyArray<{ key: keyof AssessmentConfig; isSet: (c: AssessmentConfig) => boolean }> = [
  { key: "predictions", isSet: (c) => typeof c.predictions === "string" },
  { key: "replay_dataset_code", isSet: (c) => c.replay_dataset_code === true },
];

/** How a boundary names things: the participant (`participants`, `--agent`) and a config key. */
export interface ConflictWording {
  participant: string;
  key: (key: string) => string;
}

/** One problem per key of `config` that would replace a named participant; empty when none is named. */
export function participantConflicts(
  config: AssessmentConfig,
  participantNamed: boolean,
  wording: ConflictWording,
): string[] {
  if (!participantNamed) return [];
  return REPLACES_PARTICIPANT.filter((r) => r.isSet(config)).map(
    ({ key }) =>
      `${wording.participant} and ${wording.key(key)} cannot be given together: with ${wording.key(key)} the ` +
      `participant is never asked, so its score would not be its own; give ${wording.participant} to assess ` +
      `the participant, or ${wording.key(key)} alone to score that input`,
  );
}
