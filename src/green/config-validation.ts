/**
 * Validate and resolve a request's `config` once, at the entry: the request
 * config's one resolver (request-config/resolve.ts: the schema, every problem
 * listed, unknown keys named, defaults applied), then the green agent's own
 * rules: the participant (exactly one URL is asked, and a run that names one
 * must ask it: request-config/participant-rules.ts), and paths inside the
 * allowed roots. The result is
 * the resolved config the runner is handed (its config file) and the bundle
 * records; the participant's URL lives in it (`agent`), nowhere else.
 */
import { formatAjvErrors } from "../util/schema.js";
import { configKeyNames } from "../request-config/config-keys.js";
import type { ResolvedConfig } from "../request-config/config.js";
import { resolveConfig } from "../request-config/resolve.js";
import { PATH_KEYS, isDatasetName, resolveAllowedPath } from "./allowed-roots.js";
import { benchmarkNeedsParticipant } from "../benchmarks/needs-participant.js";
import { offeredInteractions } from "../benchmarks/index.js";
import { participantConflicts } from "../request-config/participant-rules.js";
import { interactionProblems } from "../request-config/interaction-rules.js";
import { newRunId } from "./run-dir.js";

/**
 * Runner options an operator may pass on the command line but a request may
 * not: they would let whoever can send a message choose where the host writes
 * (`sparc_package_cache_dir`) or which URLs it fetches packages from.
 */
export const OPERATOR_ONLY_KEYS = ["sparc_package_cache_dir", "sparc_npm_registry", "sparc_pip_index_url"] as const;

export interface ValidatedRequest {
  /** The resolved config; `agent` is the participant under test, absent when there is none. */
  config: ResolvedConfig;
}

/**
 * The participant: role `agent`; else the only participant whatever its role;
 * else `config.agent`.
 */
export function pickParticipant(participants: Record<string, string>, config: { agent?: string }): string | null {
  if (participants["agent"]) return participants["agent"];
  const urls = Object.values(participants);
  if (urls.length === 1) return urls[0] ?? null;
  return config.agent ?? null;
}

/** The green agent's rules on a schema-valid config (participant, operator-only keys, paths); fixes `agent` and paths in place. */
function greenProblems(
  config: ResolvedConfig,
  participants: Record<string, string>,
  roots: readonly string[],
  cwd: string,
): string[] {
  const problems: string[] = [...interactionProblems(offeredInteractions, config, "config.interaction")];
  const roles = Object.keys(participants);
  const participantUrl = pickParticipant(participants, config);
  if (!participantUrl && roles.length > 1) {
    problems.push(
      `participants: no role "agent" among ${roles.join(", ")} (give the participant under test the role "agent")`,
    );
  }
  if (benchmarkNeedsParticipant(config) && !participantUrl && roles.length <= 1) {
    problems.push(`benchmark "${config.benchmark}" needs a participant: give participants.agent (or config.agent)`);
  }
  const givenAgent = config.agent;
  const named = Object.values(participants);
  if (roles.length > 0 && givenAgent !== undefined && (givenAgent !== participantUrl || !named.includes(givenAgent))) {
    // The runner asks one URL: a config.agent that is not the participant picked would be contacted instead.
    problems.push(
      `config.agent "${givenAgent}" is not the participant named in participants (${named.join(", ")}); ` +
        `leave config.agent out and name the participant under test with the role "agent"`,
    );
  }
  const conflicts = participantConflicts(config, roles.length > 0 || givenAgent !== undefined, {
    participant: roles.length > 0 ? "participants" : "config.agent",
    key: (key) => `config.${key}`,
  });
  problems.push(...conflicts);
  if (conflicts.length === 0 && participantUrl && !benchmarkNeedsParticipant(config)) {
    // A SPARC config carries its own programs: a score filed under the named participant would not be its own.
    problems.push(
      `benchmark "${config.benchmark}" never asks a participant (its config carries the programs), so a ` +
        `score could not be the named participant's: send the request without participants`,
    );
  }
  if (participantUrl) config.agent = participantUrl;
  const record = config as unknown as Record<string, unknown>;
  if (config.shard_engine === "kubernetes")
    problems.push(
      "config.shard_engine: kubernetes writes an Indexed Job's manifest for kubectl and runs nothing; the green agent runs shards with local or swarm",
    );
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
  return problems;
}

/**
 * Check and resolve a request's config (see the module note); a run id is
 * generated ({@link newRunId}) when the request gives none.
 */
export function validateAssessmentConfig(
  raw: unknown,
  participants: Record<string, string>,
  roots: readonly string[],
  cwd = process.cwd(),
): { ok: true; value: ValidatedRequest } | { ok: false; problems: string[] } {
  const resolved = resolveConfig(raw, { newRunId: () => newRunId() });
  if (!resolved.ok)
    return {
      ok: false,
      problems: formatAjvErrors(resolved.errors, "config", (path) =>
        path === "config" ? configKeyNames() : undefined,
      ),
    };
  const config = resolved.config;
  const problems = greenProblems(config, participants, roots, cwd);
  if (problems.length > 0) return { ok: false, problems };
  return { ok: true, value: { config } };
}
