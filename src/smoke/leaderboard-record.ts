/**
 * The record an AgentBeats leaderboard stores per assessment (`results/*.json`,
 * read by the leaderboard's SQL queries), as the quick-submit workflow writes it:
 * the gateway's `results` capability `{"status": <final task state>, "results":
 * [every collected value]}` plus `"participants": {role: agent id}` taken from the
 * scenario's `metadata.agentbeats_ids`, the green agent included. Collected values
 * are what the AgentBeats client keeps from the green agent's artifacts — each
 * DataPart's `data` and each TextPart that parses as JSON — and only from a task
 * that ended `completed` (any other final state drops the results there). Nothing
 * is added: no client-side paths, no timestamps, so a query that works on these
 * records works on the leaderboard's. The older record (no `status`, participants
 * only) is still accepted by the schema.
 */
import { BenchError } from "../util/errors.js";
import { checkAgainst } from "../util/schema.js";
import { jsonValuesOf, type CollectedArtifact } from "./assessment-stream.js";

/** A leaderboard results record (schemas/leaderboard_record.schema.json). */
export interface LeaderboardRecord {
  /** The task's final state as the gateway reports it; absent in the older record. */
  status?: string | null;
  results: unknown[];
  participants: Record<string, string | number>;
}

/** Every JSON value of every artifact, in artifact order. */
export function collectedResults(artifacts: readonly CollectedArtifact[]): unknown[] {
  return artifacts.flatMap((a) => jsonValuesOf(a));
}

/**
 * Build and validate the current record, keys in the workflow's order (status,
 * results, participants). `status`: the task's final state; `participants`: role
 * → agent id, the green agent's included. Throws `E_LEADERBOARD_RECORD` when the
 * result would not be a valid record.
 */
export function leaderboardRecord(
  status: string,
  participants: Record<string, string | number>,
  artifacts: readonly CollectedArtifact[],
): LeaderboardRecord {
  const record: LeaderboardRecord = {
    status,
    results: collectedResults(artifacts),
    participants: { ...participants },
  };
  const problems = checkAgainst("leaderboard_record.schema.json", record, "record");
  if (problems.length > 0) throw new BenchError("E_LEADERBOARD_RECORD", `leaderboard record: ${problems.join("; ")}`);
  return record;
}
