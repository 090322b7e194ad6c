/**
 * What the pid file says vs what runs now: used by `--status`, by `--kill`
 * and to refuse a second launch.
 */
import type { PidFile, PidFileAgent } from "./pid-file.js";
import { readPidFile } from "./pid-file.js";
import { checkOwnership, type Ownership } from "./proc-info.js";
import { procInfo, type ProcInfo } from "../process/proc-scan.js";
import { fetchCard } from "./wait-card.js";

export interface AgentState {
  agent: PidFileAgent;
  ownership: Ownership;
  /** The card URL answered. */
  listening: boolean;
}

export interface ScenarioState {
  pidFile: PidFile;
  owner: Ownership;
  agents: AgentState[];
  /** No process recorded in the pid file is still ours: the file is left over. */
  stale: boolean;
}

/** Probe every process of a pid file (and, unless `probeCards` is false, every card). */
export async function inspectPidFile(
  pidFile: PidFile,
  options: { probeCards?: boolean; read?: (pid: number) => ProcInfo | undefined } = {},
): Promise<ScenarioState> {
  const read = options.read ?? procInfo;
  const owner = checkOwnership(pidFile.owner, read);
  const agents = await Promise.all(
    pidFile.agents.map(async (agent): Promise<AgentState> => {
      const ownership = checkOwnership(agent, read);
      const listening = options.probeCards === false ? false : (await fetchCard(agent.card_url, 1_000)) !== undefined;
      return { agent, ownership, listening };
    }),
  );
  const stale = owner.kind !== "ours" && agents.every((a) => a.ownership.kind !== "ours");
  return { pidFile, owner, agents, stale };
}

/** State of a scenario directory; undefined when it has no pid file. */
export async function scenarioState(dir: string, probeCards = true): Promise<ScenarioState | undefined> {
  const pidFile = readPidFile(dir);
  return pidFile ? inspectPidFile(pidFile, { probeCards }) : undefined;
}
