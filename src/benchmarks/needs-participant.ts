/**
 * Whether a benchmark run asks a participant anything, from its config
 * alone. One answer for both sides: each runner plug-in's needsParticipant()
 * and the green agent's request check (which must not refuse a request for
 * lacking a participant the run would never ask). Each benchmark's
 * descriptor gives the answer; an unknown name asks the participant.
 */
import { findBenchmark, type ParticipantConfig } from "./index.js";

export type { ParticipantConfig } from "./index.js";

export function benchmarkNeedsParticipant(config: ParticipantConfig): boolean {
  return findBenchmark(config.benchmark)?.needsParticipant(config) ?? true;
}
