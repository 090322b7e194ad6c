/**
 * `createGreenApp(options)`: the green agent as an Express app plus the
 * handles the process needs (shutdown). Never listens (see src/a2a/server/serve.ts).
 */
import type { Express } from "express";
import type { AgentCard } from "@a2a-js/sdk";
import type { A2ARequestHandler } from "@a2a-js/sdk/server";
import { createA2AExpressApp } from "../a2a/server/express-app.js";
import { silentLogger, type Logger } from "../util/logger.js";
import { GreenExecutor } from "./executor.js";
import { isolationSentence, probeLocalIsolation, type IsolationReport } from "./isolation.js";
import { admitNewTask } from "./admission.js";
import { defaultRunnerProbe, healthReport, type RunnerProbe } from "./health.js";
import { TaskQueue } from "./queue.js";
import { defaultRunnerCommand, type RunnerCommandFn } from "./runner-command.js";
import { settingsFromEnv, type GreenSettings } from "./settings.js";

export interface GreenAppOptions {
  card: AgentCard;
  /** Runner command builder; default: built-in runner, smi-inhabit from GREEN_SMI_INHABIT_COMMAND. */
  runnerCommand?: RunnerCommandFn;
  /** Overrides of the env-derived settings (tests: short grace/heartbeat, temp results root). */
  settings?: Partial<GreenSettings>;
  /** Environment for settings and the runner's allow-listed env; default process.env. */
  env?: NodeJS.ProcessEnv;
  /** Base of relative request paths; default process.cwd(). */
  cwd?: string;
  /** Runner facts for /health; default checks the built-in runner entry. */
  runnerProbe?: () => RunnerProbe;
  /**
   * The local sandbox's isolation, or the probe already under way (the CLI starts
   * it before binding and serves the card without waiting for it): shown in
   * /health (`{"state": "probing"}` until it settles) and, once known, in the
   * card's description. Requests that need it wait for it. A probe that fails is
   * run again on next use. Default: probed now, in the background.
   */
  isolation?: IsolationReport | Promise<IsolationReport>;
  logger?: Logger;
}

export interface GreenApp {
  app: Express;
  executor: GreenExecutor;
  settings: GreenSettings;
  /** The request handler behind the HTTP bindings, for the gRPC binding to share (grpc-server.ts). */
  requestHandler: A2ARequestHandler;
  /** Cancel every task (runners: SIGTERM, SIGKILL after 2 s) and wait for them. */
  shutdown(): Promise<void>;
}

export function createGreenApp(options: GreenAppOptions): GreenApp {
  const env = options.env ?? process.env;
  const cwd = options.cwd ?? process.cwd();
  const logger = options.logger ?? silentLogger();
  const settings: GreenSettings = { ...settingsFromEnv(env, cwd), ...options.settings };
  const queue = new TaskQueue(settings.maxConcurrent);
  // The card object the app serves (handed over by createA2AExpressApp): its description gains the
  // isolation sentence once the probe has answered.
  let served: AgentCard | undefined;
  const describeIsolation = (report: IsolationReport): void => {
    const sentence = isolationSentence(report, settings.allowWeakIsolation);
    if (served) served.description = `${options.card.description}${options.card.description ? " " : ""}${sentence}`;
  };
  /** The settled report, once the probe has answered (undefined while it runs or after it failed). */
  let known: IsolationReport | undefined;
  let probed: Promise<IsolationReport> | undefined;
  const track = (p: Promise<IsolationReport>): Promise<IsolationReport> =>
    p.then(
      (report) => {
        known = report;
        describeIsolation(report);
        return report;
      },
      (err: unknown) => {
        probed = undefined; // probe again next time
        throw err;
      },
    );
  if (options.isolation) probed = track(Promise.resolve(options.isolation));
  const isolation = (): Promise<IsolationReport> => (probed ??= track(probeLocalIsolation()));
  // Probe now, so the first request does not wait for it (a failure is reported where it is awaited).
  isolation().catch(() => {});
  const executor = new GreenExecutor({
    isolation,
    settings,
    runnerCommand: options.runnerCommand ?? defaultRunnerCommand(env),
    queue,
    env,
    cwd,
    logger,
  });
  const probe = options.runnerProbe ?? defaultRunnerProbe(env);
  let requestHandler!: A2ARequestHandler;
  const app = createA2AExpressApp({
    card: options.card,
    onRequestHandler: (handler) => {
      requestHandler = handler;
    },
    onCard: (card) => {
      served = card;
      if (known) describeIsolation(known);
    },
    admitNewTask: admitNewTask({
      inFlight: () => executor.jobCount,
      maxConcurrent: settings.maxConcurrent,
      maxQueued: settings.maxQueued,
    }),
    executor,
    logger,
    maxBodyBytes: settings.maxBodyBytes,
    ...(settings.authToken ? { authToken: settings.authToken } : {}),
    routes: [
      {
        path: "/health",
        handle: () =>
          healthReport({
            activeTasks: queue.running,
            queued: queue.queued,
            maxConcurrent: queue.maxConcurrent,
            maxQueued: settings.maxQueued,
            resultsRoot: settings.resultsRoot,
            probe,
            isolation,
            isolationProbing: () => probed !== undefined && known === undefined,
            allowWeakIsolation: settings.allowWeakIsolation,
          }),
      },
    ],
  });
  return { app, executor, settings, requestHandler, shutdown: () => executor.shutdown() };
}
