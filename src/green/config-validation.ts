/**
 * Validate a request's `config` once, at the entry: Ajv against
 * `schemas/assessment_request.schema.json` (every problem listed, unknown keys
 * named), then the green agent's own rules: the participant, and paths inside
 * the allowed roots. Inside the agent, the returned config is trusted.
 */
import { checkAgainst } from "../util/schema.js";
import type { AssessmentConfig } from "../runner/options.js";
import { PATH_KEYS, isDatasetName, resolveAllowedPath } from "./allowed-roots.js";
import { benchmarkNeedsParticipant } from "../benchmarks/needs-participant.js";

export const CONFIG_SCHEMA_FILE = "assessment_request.schema.json";

/**
 * Runner options an operator may pass on the command line but a request may
 * not: they would let whoever can send a message choose where the host writes
 * (`sparc_package_cache_dir`) or which URLs it fetches packages from.
 */
export const OPERATOR_ONLY_KEYS = ["sparc_package_cache_dir", "sparc_npm_registry", "sparc_pip_index_url"] as const;

export interface ValidatedRequest {
  config: AssessmentConfig;
  /** The participant under test, or null when the benchmark needs none. */
  participantUrl: string | null;
}

/**
 * The participant: role `agent`; else the only participant whatever its role;
 * else `config.agent`.
 */
export function pickParticipant(participants: Record<string, string>, config: AssessmentConfig): string | null {
  if (participants["agent"]) return participants["agent"];
  const urls = Object.values(participants);
  if (urls.length === 1) return urls[0] ?? null;
  return config.agent ?? null;
}

export function validateAssessmentConfig(
  raw: unknown,
  participants: Record<string, string>,
  roots: readonly string[],
  cwd = process.cwd(),
): { ok: true; value: ValidatedRequest } | { ok: false; problems: string[] } {
  const schemaProblems = checkAgainst(CONFIG_SCHEMA_FILE, raw, "config");
  if (schemaProblems.length > 0) return { ok: false, problems: schemaProblems };
  const config = { ...(raw as AssessmentConfig) };
  const problems: string[] = [];
  const roles = Object.keys(participants);
  let participantUrl = pickParticipant(participants, config);
  if (!participantUrl && roles.length > 1) {
    problems.push(
      `participants: no role "agent" among ${roles.join(", ")} (give the participant under test the role "agent")`,
    );
  }
  if (benchmarkNeedsParticipant(config)) {
    if (!participantUrl && roles.length <= 1) {
      problems.push(`benchmark "${config.benchmark}" needs a participant: give participants.agent (or config.agent)`);
    }
  } else participantUrl = participantUrl ?? null;
  const record = config as unknown as Record<string, unknown>;
  for (const key of OPERATOR_ONLY_KEYS) {
    if (record[key] !== undefined) problems.push(`config.${key}: operator-only setting, not accepted in a request`);
  }
  for (const key of PATH_KEYS) {
    const value = record[key];
    if (typeof value !== "string") continue;
    if (key === "dataset" && isDatasetName(value)) continue;
    const resolved = resolveAllowedPath(value, roots, cwd);
    if (resolved === null)
      problems.push(`config.${key}: path "${value}" is outside the allowed roots (${roots.join(", ")})`);
    else record[key] = resolved;
  }
  if (problems.length > 0) return { ok: false, problems };
  return { ok: true, value: { config, participantUrl } };
}
