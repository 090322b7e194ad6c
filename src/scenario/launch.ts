/**
 * Launch a scenario's agents: each in its own process group (spawn
 * `detached`), logs prefixed with the agent's name, bounded wait for every
 * card, then the pid file. `stop()` TERMs every group, KILLs after the grace
 * and removes the pid file; the process layer KILLs the groups if the
 * launcher exits without stopping them.
 */
import type { Writable } from "node:stream";
import { BenchError, errorMessage } from "../util/errors.js";
import type { Scenario, ScenarioAgent } from "./spec.js";
import { fillPlaceholders } from "./env-placeholders.js";
import {
  readPidFile,
  removePidFile,
  writePidFile,
  pidFilePath,
  type OwnerKind,
  type PidFile,
  type PidFileAgent,
} from "./pid-file.js";
import { inspectPidFile } from "./state.js";
import { isPortFree } from "./port-check.js";
import { prefixLines } from "./prefix-lines.js";
import { waitForCard, CARD_WAIT_MS } from "./wait-card.js";
import {
  procInfo,
  startChild,
  stopGroup,
  DEFAULT_GRACE_MS,
  type ChildHandle,
  type StopOutcome,
} from "../process/index.js";
import type { LogLevel } from "../util/log-level.js";

export interface LaunchOptions {
  /** Where prefixed agent logs go. */
  log: Writable;
  /** Values from the env file: given to the agents only, never logged or written. */
  secretEnv?: Record<string, string>;
  /** Recorded in the pid file; only a `scenario-manager` owner is signalled by `--kill`. */
  ownerKind: OwnerKind;
  /** Bound on each card wait, ms; default 30 000. */
  cardTimeoutMs?: number;
  /** TERM→KILL grace on stop, ms; default {@link DEFAULT_GRACE_MS}. */
  stopGraceMs?: number;
  /** Working directory of the agents; default the current one. */
  cwd?: string;
  /** Environment the agents inherit (before scenario and secret values); default process.env. */
  baseEnv?: NodeJS.ProcessEnv;
  /** `--log-level` of the command that launches: the agents' LOG_LEVEL, over the scenario's own. */
  logLevel?: LogLevel | undefined;
}

/** An agent we started. */
export interface LaunchedAgent {
  agent: ScenarioAgent;
  /** The agent's process on the process layer (its group is left to stop()). */
  handle: ChildHandle;
  pid: number;
}

/** How an agent process ended. */
export interface AgentExit {
  name: string;
  exitCode: number | null;
  signal: NodeJS.Signals | null;
}

export interface RunningScenario {
  scenario: Scenario;
  agents: LaunchedAgent[];
  pidFile: PidFile;
  /** Resolves with the first agent that exits (whatever the reason). */
  firstExit: Promise<AgentExit>;
  /** Stop every group and remove the pid file. Idempotent. */
  stop(): Promise<StopOutcome[]>;
}

/** A scenario of this directory already runs. */
export class AlreadyRunningError extends BenchError {
  constructor(message: string) {
    super("E_ALREADY_RUNNING", message);
  }
}

/** Refuse to launch over a live launch; remove a stale pid file (reported through `log`). */
async function claimDirectory(scenario: Scenario, log: Writable): Promise<void> {
  const existing = readPidFile(scenario.dir);
  if (!existing) return;
  const state = await inspectPidFile(existing, { probeCards: false });
  if (!state.stale) {
    const live = state.agents
      .filter((a) => a.ownership.kind === "ours")
      .map((a) => `${a.agent.name} pid ${a.agent.pid}`);
    const who = state.owner.kind === "ours" ? `owner pid ${existing.owner.pid}` : "owner gone";
    throw new AlreadyRunningError(
      `scenario "${scenario.name}" is already running (${who}${live.length ? "; " + live.join(", ") : ""}); ` +
        `see \`a2a-bench scenario ${scenario.dir} --status\`, stop it with --kill`,
    );
  }
  log.write(`[scenario] removing stale pid file ${pidFilePath(scenario.dir)}\n`);
  removePidFile(scenario.dir);
}

/** Refuse to start over a listener we did not start (this tool never kills by port). */
async function checkPorts(scenario: Scenario): Promise<void> {
  for (const a of scenario.agents) {
    if (a.command && !(await isPortFree(a.host, a.port)))
      throw new BenchError(
        "E_PORT_BUSY",
        `${a.name}: port ${a.host}:${a.port} is already in use; stop what listens there (this tool never kills by port) or change agent_port`,
      );
  }
}

/** Start one agent in its own group, its output prefixed into `log`; throws E_SPAWN when it cannot start. */
async function startAgent(
  agent: ScenarioAgent,
  env: NodeJS.ProcessEnv,
  options: LaunchOptions,
): Promise<LaunchedAgent> {
  const command = agent.command!;
  // The scenario's stop() owns the group: "keep" leaves leftovers to it.
  const run = startChild({
    file: command.file,
    args: command.args,
    cwd: options.cwd ?? process.cwd(),
    env,
    stdout: "pipe",
    stderr: "pipe",
    leftovers: "keep",
  });
  const { child, pid } = run;
  if (pid === undefined || child === undefined) {
    const { spawnError } = await run.done;
    throw new BenchError("E_SPAWN", `${agent.name}: cannot start ${command.file}: ${spawnError ?? "no pid"}`);
  }
  prefixLines(child.stdout!, options.log, `[${agent.name}] `);
  prefixLines(child.stderr!, options.log, `[${agent.name}] `);
  return { agent, handle: run, pid };
}

/** Wait for every agent's card; an agent that exits first aborts its wait with its exit status. */
async function waitForCards(
  scenario: Scenario,
  exits: ReadonlyMap<string, AgentExit>,
  cardTimeoutMs: number,
): Promise<void> {
  await Promise.all(
    scenario.agents.map((agent) =>
      waitForCard(agent.cardUrl, {
        timeoutMs: cardTimeoutMs,
        abortReason: () => {
          const e = exits.get(agent.name);
          return e
            ? `${agent.name} exited (code ${e.exitCode ?? "none"}, signal ${e.signal ?? "none"}) before serving its card`
            : undefined;
        },
      }),
    ),
  );
}

/** The pid file's content. Identities are read after the cards answer: a `sh -c "exec ..."` command has exec'd by then. */
function describeLaunch(scenario: Scenario, launched: readonly LaunchedAgent[], options: LaunchOptions): PidFile {
  const owner = procInfo(process.pid);
  const agents: PidFileAgent[] = launched.map((l) => {
    const info = procInfo(l.pid);
    if (!info) throw new BenchError("E_AGENT_EXITED", `${l.agent.name} (pid ${l.pid}) exited after serving its card`);
    return {
      name: l.agent.name,
      is_green: l.agent.isGreen,
      pid: l.pid,
      pgid: info.pgid,
      startTime: info.startTime,
      cmdline: info.cmdline,
      host: l.agent.host,
      port: l.agent.port,
      endpoint: l.agent.endpoint,
      card_url: l.agent.cardUrl,
    };
  });
  return {
    schema_version: 1,
    scenario_manager_pid: process.pid,
    owner: {
      kind: options.ownerKind,
      pid: process.pid,
      startTime: owner?.startTime ?? 0,
      cmdline: owner?.cmdline ?? [],
    },
    scenario_file: scenario.file,
    started_at: new Date().toISOString(),
    env_keys: Object.keys(options.secretEnv ?? {}).sort(),
    agents,
  };
}

/** Idempotent stop of what was launched: TERM → grace → KILL per group (a sweep only where the leader is gone), then the pid file. */
function stopper(
  scenario: Scenario,
  launched: readonly LaunchedAgent[],
  exits: ReadonlyMap<string, AgentExit>,
  graceMs: number,
): () => Promise<StopOutcome[]> {
  let stopped: Promise<StopOutcome[]> | undefined;
  const ownerPid = process.pid;
  return () => {
    stopped ??= (async () => {
      const outcomes = await Promise.all(
        launched.map((l) =>
          (exits.get(l.agent.name)?.exitCode ?? null) !== null
            ? stopGroup(l.pid, 0) // leader exited with a code; still sweep any member left in its group
            : stopGroup(l.pid, graceMs),
        ),
      );
      removePidFile(scenario.dir, ownerPid);
      return outcomes;
    })();
    return stopped;
  };
}

/** Start every agent that has a command; wait for every card (commandless agents must already serve theirs). */
export async function launchScenario(scenario: Scenario, options: LaunchOptions): Promise<RunningScenario> {
  const baseEnv = options.baseEnv ?? process.env;
  const secretEnv = options.secretEnv ?? {};
  // Placeholders are filled for every agent before any starts: an unset one starts nothing.
  const agentEnv = new Map(scenario.agents.map((a) => [a.name, fillPlaceholders(a.name, a.env, [secretEnv, baseEnv])]));
  await claimDirectory(scenario, options.log);
  await checkPorts(scenario);

  const launched: LaunchedAgent[] = [];
  const exits = new Map<string, AgentExit>();
  let resolveFirst!: (e: AgentExit) => void;
  const firstExit = new Promise<AgentExit>((r) => (resolveFirst = r));
  const stop = stopper(scenario, launched, exits, options.stopGraceMs ?? DEFAULT_GRACE_MS);

  try {
    for (const agent of scenario.agents) {
      if (!agent.command) continue;
      const env = { ...baseEnv, ...agentEnv.get(agent.name), ...secretEnv };
      if (options.logLevel !== undefined) env.LOG_LEVEL = options.logLevel;
      const l = await startAgent(agent, env, options);
      launched.push(l);
      void l.handle.exited.then(({ exitCode, signal }) => {
        const e = { name: agent.name, exitCode, signal };
        exits.set(agent.name, e);
        resolveFirst(e);
      });
    }
    await waitForCards(scenario, exits, options.cardTimeoutMs ?? CARD_WAIT_MS);
    const pidFile = describeLaunch(scenario, launched, options);
    await writePidFile(scenario.dir, pidFile);
    return { scenario, agents: launched, pidFile, firstExit, stop };
  } catch (err) {
    await stop().catch(() => []);
    if (err instanceof BenchError) throw err;
    throw new BenchError("E_LAUNCH", `launching scenario "${scenario.name}" failed: ${errorMessage(err)}`, {
      cause: err,
    });
  }
}
