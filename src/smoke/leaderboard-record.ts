/**
 * The record an AgentBeats leaderboard stores per assessment (`results/*.json`,
 * read by the leaderboard's SQL queries): `{"participants": {role: agent id},
 * "results": [every collected value]}`. Collected values are what the AgentBeats
 * client keeps from the green agent's artifacts — each DataPart's `data` and each
 * TextPart that parses as JSON — and only from a task that ended `completed`
 * (any other final state drops the results there). Nothing is added: no
 * client-side paths, no timestamps, so a query that works on these records
 * works on the leaderboard's.
 */
import { BenchError } from "../util/errors.js";
import { checkAgainst } from "../util/schema.js";
import { jsonValuesOf, type CollectedArtifact } from "./assessment-stream.js";

/** A leaderboard results record (schemas/leaderboard_record.schema.json). */
export interface LeaderboardRecord {
  participants: Record<string, string>;
  results: unknown[];
}

/** Every JSON value of every artifact, in artifact order. */
export function collectedResults(artifacts: readonly CollectedArtifact[]): unknown[] {
  return artifacts.flatMap((a) => jsonValuesOf(a));
}

/**
 * Build and validate the record. `participants`: role → agent id. Throws
 * `E_LEADERBOARD_RECORD` when the result would not be a valid record.
 */
export function leaderboardRecord(
  participants: Record<string, string>,
  artifacts: readonly CollectedArtifact[],
): LeaderboardRecord {
  const record: LeaderboardRecord = { participants: { ...participants }, results: collectedResults(artifacts) };
  const problems = checkAgainst("leaderboard_record.schema.json", record, "record");
  if (problems.length > 0) throw new BenchError("E_LEADERBOARD_RECORD", `leaderboard record: ${problems.join("; ")}`);
  return record;
}
