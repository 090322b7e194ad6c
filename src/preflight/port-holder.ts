/**
 * Who holds a scenario's port, and so what preflight tells the operator to do
 * about it. `a2a-bench scenario --kill` stops only what the scenario's pid file
 * records (never by port): it is the advice only for an agent listed there and
 * still the process we started. An agent started by hand is named (pid and
 * command line, when /proc shows it) for the operator to stop.
 */
import { relative, resolve } from "node:path";
import { defaultScenarioDir } from "../util/package-root.js";
import { listeningPids } from "../process/port-holder.js";
import { procInfo, type ProcInfo } from "../process/proc-scan.js";
import { readPidFile, PID_FILE, type PidFile } from "../scenario/pid-file.js";
import { checkOwnership } from "../scenario/proc-info.js";

/** What holds a port: an agent of the scenario's pid file, another process, or nobody we can see. */
export type PortHolder =
  | { kind: "scenario"; pid: number; agent: string }
  | { kind: "process"; pid: number; command: string }
  | { kind: "unknown" };

/** Finds the holder of `port` for the scenario in `scenarioDir`. */
export type PortHolderProbe = (scenarioDir: string, port: number) => Promise<PortHolder>;

export interface PortHolderReaders {
  listeningPids: (port: number) => number[] | undefined;
  procInfo: (pid: number) => ProcInfo | undefined;
  readPidFile: (dir: string) => PidFile | undefined;
}

const realReaders: PortHolderReaders = { listeningPids, procInfo, readPidFile };

/** Longest command line shown in advice, characters. */
const MAX_COMMAND_CHARS = 120;

function shortCommand(cmdline: readonly string[]): string {
  const text = cmdline.join(" ");
  return text.length <= MAX_COMMAND_CHARS ? text : text.slice(0, MAX_COMMAND_CHARS - 1) + "…";
}

/** The real probe: the scenario's pid file first, then /proc. */
export function portHolderProbe(readers: PortHolderReaders = realReaders): PortHolderProbe {
  return (scenarioDir, port) => Promise.resolve(findHolder(readers, scenarioDir, port));
}

function findHolder(readers: PortHolderReaders, scenarioDir: string, port: number): PortHolder {
  let pidFile: PidFile | undefined;
  try {
    pidFile = readers.readPidFile(scenarioDir);
  } catch {
    pidFile = undefined; // malformed: nothing in it is trusted
  }
  // Recorded agents that are still the processes we started (same start time and command line).
  const ours = (pidFile?.agents ?? []).filter((a) => checkOwnership(a, readers.procInfo).kind === "ours");
  const pids = readers.listeningPids(port) ?? [];
  for (const pid of pids) {
    const info = readers.procInfo(pid);
    const agent = ours.find((a) => a.pid === pid || (info !== undefined && info.pgid === a.pgid));
    if (agent) return { kind: "scenario", pid: agent.pid, agent: agent.name };
  }
  const first = pids.map((pid) => readers.procInfo(pid)).find((i) => i !== undefined);
  if (first) return { kind: "process", pid: first.pid, command: shortCommand(first.cmdline) };
  // /proc did not show the holder (not ours to read): the pid file may still name it.
  const recorded = ours.find((a) => a.port === port);
  if (recorded) return { kind: "scenario", pid: recorded.pid, agent: recorded.name };
  return { kind: "unknown" };
}

/** The `scenario --kill` command line for a scenario directory, as the operator would type it. */
function killCommand(scenarioDir: string, cwd: string): string {
  if (resolve(scenarioDir) === resolve(defaultScenarioDir)) return "a2a-bench scenario --kill";
  const rel = relative(cwd, scenarioDir) || ".";
  const shown = rel.startsWith("..") ? scenarioDir : rel;
  return `a2a-bench scenario ${/\s/.test(shown) ? JSON.stringify(shown) : shown} --kill`;
}

/** What to do about `address` (host:port) held by `holder`. */
export function portAdvice(holder: PortHolder, address: string, scenarioDir: string, cwd = process.cwd()): string {
  switch (holder.kind) {
    case "scenario":
      return `${address} is the ${holder.agent} agent a2a-bench started (pid ${holder.pid}, in ${PID_FILE}): \`${killCommand(scenarioDir, cwd)}\` stops it`;
    case "process":
      return `${address} is held by pid ${holder.pid} (${holder.command}), not started by \`a2a-bench scenario\`: stop it where it was started (e.g. \`kill ${holder.pid}\`)`;
    case "unknown":
      return `${address} is held by a process not started by \`a2a-bench scenario\` (no ${PID_FILE} entry; \`ss -ltnp\` names it): stop the process you started by hand`;
  }
}
