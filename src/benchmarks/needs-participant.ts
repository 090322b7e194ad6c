/**
 * Whether a benchmark run asks a participant anything, from its config
 * alone. One answer for both sides: each runner plug-in's needsParticipant()
 * and the green agent's request check (which must not refuse a request for
 * lacking a participant the run would never ask).
 */
import type { AssessmentConfig } from "../request-config/config.js";

// The request config as given (the green agent asks before resolving) or resolved: both carry these keys.
export type ParticipantConfig = Pick<AssessmentConfig, "predictions" | "replay_dataset_code"> & { benchmark: string };

export function benchmarkNeedsParticipant(config: ParticipantConfig): boolean {
  switch (config.benchmark) {
    case "humaneval":
    case "swebench":
      return !config.predictions; // a predictions / samples file replaces the participant
    case "redcode":
      return !config.replay_dataset_code; // replay runs the dataset's own code
    case "sparc":
      return false; // a SPARC config carries its programs
    default:
      return true; // smi-inhabit (external runner) and anything else asks the participant
  }
}
