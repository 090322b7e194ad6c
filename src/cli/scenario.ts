/**
 * `a2a-bench scenario [DIR] [--status | --kill] [--env-file FILE]`: run the
 * scenario's agents in the foreground (until SIGINT/SIGTERM), report on them,
 * or stop them from the pid file.
 */
import { existsSync } from "node:fs";
import { resolve } from "node:path";
import type { CliCommand, CliIo } from "./types.js";
import { UsageError } from "../util/errors.js";
import { defaultScenarioDir } from "../util/package-root.js";
import { loadScenario } from "../scenario/load.js";
import { readEnvFile } from "../scenario/env-file.js";
import { scenarioStatus } from "../scenario/status.js";
import { killScenario } from "../scenario/kill.js";
import { launchScenario } from "../scenario/launch.js";
import { parseUsage } from "../util/parse-usage.js";
import { LOG_LEVELS, LOG_LEVEL_OPTION, parseLogLevel, type LogLevel } from "../util/log-level.js";

export type ScenarioAction = "launch" | "status" | "kill";

export interface ScenarioArgs {
  /** Scenario directory or .toml file. Default: the package's scenario_smi/. */
  dir: string;
  action: ScenarioAction;
  /** Env file for the agents; undefined = `.env` in the current directory when it exists. */
  envFile: string | undefined;
  /** `--log-level`: the agents' LOG_LEVEL; undefined → theirs. */
  logLevel: LogLevel | undefined;
}

export const usage = `Usage: a2a-bench scenario [DIR] [--status | --kill] [--env-file FILE] [--log-level L]

Runs the agents of DIR/scenario.toml (default: the package's scenario_smi/) in the
foreground, each in its own process group, logs prefixed with the agent name; Ctrl-C
(SIGINT) or SIGTERM stops them. Writes DIR/.scenario_pids.json while running.

  --status          one line per agent (listening, pid, card URL), pid file staleness
  --kill            stop the agents recorded in the pid file (TERM, KILL after 5 s)
  --env-file FILE   KEY=VALUE lines passed to the agents only (default: ./.env if present)
  --log-level L     the agents' LOG_LEVEL (over the scenario's and the env file's): ${LOG_LEVELS.join("|")}
`;

/** Parse argv (pure). */
export function parseScenarioArgs(argv: string[]): ScenarioArgs {
  const parsed = parseUsage({
    args: argv,
    allowPositionals: true,
    options: {
      status: { type: "boolean" },
      kill: { type: "boolean" },
      "env-file": { type: "string" },
      ...LOG_LEVEL_OPTION,
    },
  });
  const { values, positionals } = parsed;
  if (positionals.length > 1)
    throw new UsageError(`expected at most one DIR, got ${positionals.length}: ${positionals.join(" ")}`);
  if (values.status && values.kill) throw new UsageError("--status and --kill are exclusive");
  return {
    dir: positionals[0] ?? defaultScenarioDir,
    action: values.status ? "status" : values.kill ? "kill" : "launch",
    envFile: values["env-file"],
    logLevel: parseLogLevel(values["log-level"]),
  };
}

function envOf(args: ScenarioArgs): Record<string, string> {
  if (args.envFile !== undefined) return readEnvFile(resolve(args.envFile));
  const implicit = resolve(".env");
  return existsSync(implicit) ? readEnvFile(implicit) : {};
}

/** Foreground launch: resolves with the exit status once stopped. */
async function runForeground(args: ScenarioArgs, io: CliIo): Promise<number> {
  const scenario = loadScenario(args.dir);
  const secretEnv = envOf(args);
  const running = await launchScenario(scenario, {
    log: io.stdout,
    secretEnv,
    ownerKind: "scenario-manager",
    logLevel: args.logLevel,
  });
  for (const a of scenario.agents) io.stdout.write(`[scenario] ${a.name} ready: ${a.cardUrl}\n`);
  io.stdout.write(
    `[scenario] "${scenario.name}" running; pid file ${scenario.dir}/.scenario_pids.json; Ctrl-C to stop\n`,
  );

  let outcome: { reason: string; status: number };
  const signals: NodeJS.Signals[] = ["SIGINT", "SIGTERM", "SIGHUP"];
  const handlers: Array<[NodeJS.Signals, () => void]> = [];
  try {
    outcome = await Promise.race([
      new Promise<{ reason: string; status: number }>((r) => {
        for (const s of signals) {
          const h = (): void => r({ reason: `received ${s}`, status: 0 });
          handlers.push([s, h]);
          process.once(s, h);
        }
      }),
      // An agent dying on its own is a failure; agents dying because we stop them come later and do not count.
      running.firstExit.then((e) => ({
        reason: `${e.name} exited (code ${e.exitCode ?? "none"}, signal ${e.signal ?? "none"})`,
        status: 1,
      })),
    ]);
  } finally {
    for (const [s, h] of handlers) process.off(s, h);
  }
  io.stdout.write(`[scenario] ${outcome.reason}; stopping agents\n`);
  const outcomes = await running.stop();
  const forced = outcomes.filter((o) => o.forcefullyTerminated).length;
  io.stdout.write(`[scenario] stopped${forced ? ` (${forced} needed SIGKILL)` : ""}; pid file removed\n`);
  return outcome.status;
}

export const command: CliCommand = {
  name: "scenario",
  summary: "start/inspect/stop the green + purple agents of a scenario directory",
  usage,
  async run(argv: string[], io: CliIo): Promise<number> {
    const args = parseScenarioArgs(argv);
    switch (args.action) {
      case "status": {
        const scenario = loadScenario(args.dir);
        const report = await scenarioStatus(
          scenario,
          args.envFile !== undefined || existsSync(".env") ? envOf(args) : {},
        );
        io.stdout.write(report.lines.join("\n") + "\n");
        return report.healthy ? 0 : 1;
      }
      case "kill": {
        const dir = loadScenario(args.dir).dir;
        const report = await killScenario(dir);
        if (!report.hadPidFile) {
          io.stdout.write(`no pid file in ${dir}: nothing to stop (this tool never kills by port)\n`);
          return 0;
        }
        for (const v of report.verdicts) {
          if (v.action === "stopped")
            io.stdout.write(`${v.name} pid=${v.pid} stopped${v.forcefullyTerminated ? " (SIGKILL)" : ""}\n`);
          else if (v.action === "already-gone") io.stdout.write(`${v.name} pid=${v.pid} already gone\n`);
          else io.stdout.write(`${v.name} pid=${v.pid} REFUSED: no longer ours (${v.reason})\n`);
        }
        io.stdout.write(`pid file removed\n`);
        return report.verdicts.some((v) => v.action === "refused") ? 1 : 0;
      }
      case "launch":
        return runForeground(args, io);
    }
  },
};
