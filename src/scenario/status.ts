/** `scenario --status` lines: one per agent, then the pid file's verdict and masked env keys. */
import { pidFilePath, readPidFile } from "./pid-file.js";
import { inspectPidFile } from "./state.js";
import { fetchCard } from "./wait-card.js";
import { maskValue } from "./env-file.js";
import type { Scenario } from "./spec.js";

export interface StatusReport {
  lines: string[];
  /** Every agent answers its card. */
  healthy: boolean;
}

const yesNo = (b: boolean): string => (b ? "yes" : "no");

/** Build the status report of a scenario (probes cards; reads /proc). */
export async function scenarioStatus(scenario: Scenario, env: Record<string, string> = {}): Promise<StatusReport> {
  const lines: string[] = [];
  const pidFile = readPidFile(scenario.dir);
  let healthy = true;
  if (pidFile) {
    const state = await inspectPidFile(pidFile);
    for (const a of state.agents) {
      const pid =
        a.ownership.kind === "ours"
          ? String(a.agent.pid)
          : `${a.agent.pid}(${a.ownership.kind === "gone" ? "gone" : "not ours"})`;
      lines.push(
        `${a.agent.name.padEnd(8)} port=${a.agent.port} listening=${yesNo(a.listening)} pid=${pid} card=${a.agent.card_url}`,
      );
      healthy &&= a.listening && a.ownership.kind === "ours";
    }
    const ownerLive = state.owner.kind === "ours";
    lines.push(
      `pid_file=${pidFilePath(scenario.dir)} stale=${yesNo(state.stale)} owner=${pidFile.owner.kind} pid=${pidFile.owner.pid}${ownerLive ? "" : "(gone)"}` +
        (state.stale ? " (left over: remove it with --kill)" : ""),
    );
    if (pidFile.env_keys.length > 0) lines.push(`env_keys=${pidFile.env_keys.join(",")}`);
  } else {
    for (const a of scenario.agents) {
      const listening = (await fetchCard(a.cardUrl, 1_000)) !== undefined;
      lines.push(`${a.name.padEnd(8)} port=${a.port} listening=${yesNo(listening)} pid=- card=${a.cardUrl}`);
      healthy &&= listening;
    }
    lines.push(`pid_file=${pidFilePath(scenario.dir)} (none: not launched by this tool)`);
  }
  for (const [k, v] of Object.entries(env).sort(([a], [b]) => a.localeCompare(b)))
    lines.push(`env ${k}=${maskValue(v)}`);
  return { lines, healthy };
}
