/**
 * The normalized view of a scenario, whichever TOML layout it came from
 * (smi_bench `[[agents]]` or the AgentBeats tutorial `[green_agent]` +
 * `[[participants]]`). Everything downstream (launch, status, kill, smoke,
 * preflight) works on this shape only.
 */
import type { AssessmentConfig } from "../request-config/config.js";

/** How to start one agent process. */
export interface AgentCommand {
  /** Executable (our own CLI: `process.execPath`). */
  file: string;
  args: string[];
}

/** One agent of a scenario. */
export interface ScenarioAgent {
  /** Log prefix and status name (`green`, `purple`, or a participant role). */
  name: string;
  isGreen: boolean;
  /** Participant role in the assessment request; `green` for the green agent. */
  role: string;
  host: string;
  port: number;
  /** Base URL clients use, with a trailing slash (`http://127.0.0.1:9999/`). */
  endpoint: string;
  /** `<endpoint>.well-known/agent-card.json`. */
  cardUrl: string;
  /** Undefined when the scenario gives no command (agent expected to run already). */
  command: AgentCommand | undefined;
  /** Non-secret extra environment from the scenario file. */
  env: Record<string, string>;
  /** AgentBeats agent id (leaderboard layout), if the scenario gives one. */
  agentbeatsId: string | undefined;
}

export type ScenarioLayout = "smi" | "agentbeats";

/** A loaded, validated scenario. */
export interface Scenario {
  name: string;
  /** Absolute scenario directory (pid file lives here). */
  dir: string;
  /** Absolute path of the scenario.toml it came from. */
  file: string;
  layout: ScenarioLayout;
  /** Green first, then participants in file order. */
  agents: ScenarioAgent[];
  /** Assessment config the smoke client sends. */
  config: AssessmentConfig;
}

/** Path of the agent card under an endpoint (A2A spec v0.3 §5.3 well-known URI). */
export const AGENT_CARD_PATH = ".well-known/agent-card.json";

/** The config `smoke` sends when the scenario has none: the embedded HumanEval sample. */
export const DEFAULT_SMOKE_CONFIG: AssessmentConfig = { benchmark: "humaneval", dataset: "sample" };

/** Green agent of a scenario (validation guarantees exactly one). */
export function greenAgent(scenario: Scenario): ScenarioAgent {
  const green = scenario.agents.find((a) => a.isGreen);
  if (!green) throw new Error("scenario without green agent"); // unreachable after validation
  return green;
}

/** `participants` map of an assessment request: role → endpoint of each non-green agent. */
export function participantsOf(scenario: Scenario): Record<string, string> {
  const out: Record<string, string> = {};
  for (const a of scenario.agents) if (!a.isGreen) out[a.role] = a.endpoint;
  return out;
}

/** Compose service name of the green agent in AgentBeats' leaderboard runs; participants' services are their role names. */
export const GREEN_SERVICE = "green-agent";

/** AgentBeats' container port (agents run `--port 9009` in compose). */
export const AGENTBEATS_PORT = 9009;

/** Endpoint of an agent run as compose service `service`: `http://<service>:9009/`. */
export function composeEndpoint(service: string): string {
  return `http://${service}:${AGENTBEATS_PORT}/`;
}

/**
 * `participants` map of a leaderboard record, as AgentBeats' quick-submit copies it from the
 * scenario's `metadata.agentbeats_ids`: role → AgentBeats agent id for every agent, the green agent
 * first under role `green`, or the endpoint for an agent the scenario gives no id (local runs).
 */
export function participantIdsOf(scenario: Scenario): Record<string, string> {
  const out: Record<string, string> = {};
  for (const a of [...scenario.agents].sort((x, y) => Number(y.isGreen) - Number(x.isGreen)))
    out[a.role] = a.agentbeatsId ?? a.endpoint;
  return out;
}

/** Endpoint URL for a listening host: wildcard addresses are reached on loopback. */
export function endpointFor(host: string, port: number): string {
  const reach = host === "0.0.0.0" || host === "::" || host === "" ? "127.0.0.1" : host;
  const h = reach.includes(":") && !reach.startsWith("[") ? `[${reach}]` : reach;
  return `http://${h}:${port}/`;
}
