/**
 * `a2a-bench run <benchmark> [options]`: parse (pure), validate once, then
 * run the benchmark with the real sandbox and an A2A participant. Stops
 * promptly on SIGTERM, SIGINT, or when the green agent that started it dies
 * (its lifeline, env A2A_BENCH_LIFELINE_FD, closes): no new item, sandboxes
 * killed, checkpoint written, exit 143. stdin is not read: a TTY, /dev/null or
 * an empty pipe are all the same to a run.
 * What stdout carries: a bar (terminal) or plain lines (a pipe, NO_COLOR) and a
 * readable summary line at the end; `--json` one JSON summary; `--events` the
 * runner protocol the green agent reads (see src/runner/progress.ts).
 */
import type { CliCommand, CliIo } from "./types.js";
import { parseRunArgs, readConfigFile, resolveRunArgs, usageText, type ParsedRunArgs } from "../runner/run-args.js";
import { getBenchmark, knownBenchmarks, offeredInteractions } from "../benchmarks/index.js";
import { createLogger } from "../util/logger.js";
import {
  executeRun,
  EXIT_INFRASTRUCTURE,
  EXIT_INTERRUPTED,
  type RunDependencies,
  type RunOutcome,
} from "../runner/run-benchmark.js";
import { InfrastructureError } from "../util/infrastructure-error.js";
import { isFullIsolation, weakIsolationWarning } from "../runner/isolation-policy.js";
import { openRunParticipant, openRunSandbox } from "../runner/run-dependencies.js";
import {
  barReporter,
  chooseDisplayMode,
  eventLineReporter,
  plainReporter,
  summaryCollector,
  RUN_BAR_FORMAT,
  type DisplayMode,
  type ProgressReporter,
} from "../runner/progress.js";
import { TerminalBar } from "../util/terminal-bar.js";
import { readableSummaryLine } from "../runner/summary-line.js";
import { assertOutDirUsable, clearRunFiles, inspectOutDir, removeIfUnused } from "./run-out-dir.js";
import { maxReplyBytes } from "../a2a/client/reply-limit.js";
import { gatewaySettingsFromEnv, RUNNER_GATEWAY_PREFIX } from "../gateway/settings.js";
import { UsageError, errorMessage } from "../util/errors.js";
import type { RunOptions } from "../runner/options.js";
import type { Logger } from "../util/logger.js";
import { useBatchHeapPolicy } from "../util/batch-heap.js";
import { watchLifeline } from "../process/index.js";
import { workerIdentity } from "../runner/worker-log.js";
import { runSharded } from "./run-shards.js";

/** After a stop, how long pending handles (sockets, timers) may keep the process alive, ms. */
export const STOP_GRACE_MS = 2000;

/** The option the green agent's operator sets to let A2A requests run below full isolation. */
const GREEN_WEAK_ISOLATION_OPT_IN =
  "start the green agent with --allow-weak-isolation (or GREEN_ALLOW_WEAK_ISOLATION=1)";

/** `createLogger`'s level option: the flag's, else none (env LOG_LEVEL, else info). */
const lv = (level: string | undefined): { level?: string } => (level ? { level } : {});

/** The progress reporter and the logger of one display mode (see src/runner/progress.ts). */
function openDisplay(
  mode: DisplayMode,
  io: CliIo,
  level: string | undefined,
): { progress: ProgressReporter; logger: Logger; collector?: ReturnType<typeof summaryCollector> } {
  switch (mode) {
    case "bar": {
      // Logs go through the bar: printed above it, then the bar is redrawn.
      const bar = new TerminalBar(io.stdout, { format: RUN_BAR_FORMAT });
      return {
        progress: barReporter(io.stdout, bar),
        logger: createLogger({ component: "runner", destination: bar.sink(), color: true, ...lv(level) }),
      };
    }
    case "plain":
      return {
        progress: plainReporter(io.stdout),
        logger: createLogger({ component: "runner", destination: io.stderr, color: false, ...lv(level) }),
      };
    case "events":
      return {
        progress: eventLineReporter(io.stdout),
        logger: createLogger({ component: "runner", destination: io.stderr, ...lv(level) }),
      };
    case "json": {
      const collector = summaryCollector();
      return {
        progress: collector,
        collector,
        logger: createLogger({ component: "runner", destination: io.stderr, ...lv(level) }),
      };
    }
  }
}

/** Stops of a run: SIGTERM, SIGINT, and a lost lifeline abort `signal`; `dispose` removes the listeners. */
function watchStops(logger: Logger, env: NodeJS.ProcessEnv): { signal: AbortSignal; dispose(): void } {
  const controller = new AbortController();
  const stop = (reason: string) => (): void => {
    if (controller.signal.aborted) return;
    logger.warn({ reason }, "stopping the run");
    controller.abort(new Error(reason));
  };
  const onTerm = stop("SIGTERM");
  const onInt = stop("SIGINT");
  process.once("SIGTERM", onTerm);
  process.once("SIGINT", onInt);
  // The green agent that started us is gone (its end of our lifeline closed), even if it was SIGKILLed.
  const lifeline = watchLifeline(env, stop("the green agent that started this run is gone (lifeline closed)"));
  return {
    signal: controller.signal,
    dispose: () => {
      process.removeListener("SIGTERM", onTerm);
      process.removeListener("SIGINT", onInt);
      lifeline?.dispose();
    },
  };
}

/** `--json`'s one summary line of a run that ended (interrupted or not). */
function summaryLine(options: RunOptions, outcome: RunOutcome, exitCode: number, aggregate: unknown): string {
  return (
    JSON.stringify({
      run_id: options.run_id,
      benchmark: options.benchmark,
      exit_code: exitCode,
      interrupted: outcome.interrupted,
      status: outcome.error ? "error" : outcome.interrupted ? "interrupted" : "ok",
      error: outcome.error ? { code: outcome.error.code, message: outcome.error.message } : null,
      out: options.out,
      results_path: outcome.interrupted ? null : outcome.paths.results,
      aggregate: aggregate ?? null,
    }) + "\n"
  );
}

/** `--json`'s summary line of a run stopped by an infrastructure error before its items. */
function errorSummaryLine(options: RunOptions, err: InfrastructureError): string {
  return (
    JSON.stringify({
      run_id: options.run_id,
      benchmark: options.benchmark,
      exit_code: EXIT_INFRASTRUCTURE,
      status: "error",
      error: { code: err.code, message: err.message },
    }) + "\n"
  );
}

/** The run's dependencies: the real sandbox (warning on weak isolation) and an A2A participant. */
function runDependencies(
  args: ParsedRunArgs,
  io: CliIo,
  logger: Logger,
  options: RunOptions,
): Pick<RunDependencies, "createSandbox" | "createParticipant" | "requireFullIsolation" | "modelGateway"> {
  // Read only when asked for: a run without a gateway never fails on its settings.
  const gateway = options.model_gateway === true ? gatewaySettingsFromEnv(io.env, RUNNER_GATEWAY_PREFIX) : undefined;
  return {
    ...(gateway ? { modelGateway: gateway } : {}),
    createSandbox: async (o) => {
      const sandbox = await openRunSandbox(o, logger);
      // Visible on the terminal, not only in the log (with --require-full-isolation the run refuses instead).
      if (!isFullIsolation(sandbox.isolation) && args.requireFullIsolation !== true)
        io.stderr.write(weakIsolationWarning(sandbox.isolation) + "\n");
      return sandbox;
    },
    ...(args.requireFullIsolation ? { requireFullIsolation: { optIn: GREEN_WEAK_ISOLATION_OPT_IN } } : {}),
    createParticipant: (o) => openRunParticipant(o, logger, io.env),
  };
}

/** The participant reply cap of a run (config, else env, else the default), a bad env value a usage error. */
function replyCap(options: RunOptions, env: NodeJS.ProcessEnv): number {
  try {
    return maxReplyBytes(options.max_participant_reply_bytes, env);
  } catch (err) {
    throw new UsageError(errorMessage(err));
  }
}

export async function runCommand(argv: string[], io: CliIo): Promise<number> {
  const args = parseRunArgs(argv);
  // Looked up once: an unknown benchmark is a usage error with the known list, before anything else.
  const def = await getBenchmark(args.benchmark);
  const fileConfig = args.configFile ? await readConfigFile(args.configFile) : {};
  // Resolved once; the green agent's config file is resolved already and keeps its run id.
  const options = resolveRunArgs(offeredInteractions, args, fileConfig);
  replyCap(options, io.env); // a bad env setting is refused before anything runs
  if (options.model_gateway === true && (options.shards ?? 1) > 1)
    throw new UsageError("model_gateway: a sharded run is not served (each shard would keep its own cost cap)");
  // The output directory: a run already there is continued (--resume) or replaced (--force), never silently overwritten.
  const outState = inspectOutDir(options.out);
  assertOutDirUsable(options.out, outState, { resume: options.resume, force: args.force === true });
  if (args.force === true && !options.resume) clearRunFiles(options.out, outState);
  const mode = chooseDisplayMode(io.stdout, io.env, args.json === true, args.events === true);
  const { progress, logger, collector } = openDisplay(mode, io, args.logLevel);
  // The bar and plain displays end with one line for people; --json and --events print for programs.
  const forPeople = mode === "bar" || mode === "plain";
  const summaryFor = (over: Pick<Parameters<typeof readableSummaryLine>[0], "interrupted" | "error" | "results">) =>
    readableSummaryLine({
      benchmark: options.benchmark,
      runId: options.run_id,
      out: options.out,
      scoreMetric: def.scoreMetric,
      ...over,
    }) + "\n";
  const stops = watchStops(logger, io.env);
  let finished = false;
  try {
    if (options.shard_engine !== undefined && options.shard_engine !== "local" && (options.shards ?? 1) <= 1)
      throw new UsageError(`shard_engine ${options.shard_engine} runs shards: give shards above 1`);
    if ((options.shards ?? 1) > 1) {
      const sharded = await runSharded({
        ...{ def, options, io, logger, progress, signal: stops.signal },
        requireFullIsolation: args.requireFullIsolation === true,
      });
      finished = true;
      progress.close(sharded.aggregate as Record<string, unknown> | undefined);
      const line = { run_id: options.run_id, benchmark: options.benchmark, exit_code: sharded.exitCode };
      if (collector)
        io.stdout.write(JSON.stringify({ ...line, out: options.out, aggregate: sharded.aggregate }) + "\n");
      if (forPeople)
        io.stdout.write(
          `${options.benchmark} run ${options.run_id}: ${options.shards} shards, exit ${sharded.exitCode}; out ${options.out}\n`,
        );
      return sharded.exitCode;
    }
    const outcome = await executeRun(def, options, {
      logger,
      progress,
      signal: stops.signal,
      worker: workerIdentity(io.env),
      ...runDependencies(args, io, logger, options),
    });
    finished = true;
    progress.close();
    if (!outcome.interrupted) logger.info({ results: outcome.paths.results }, "run finished");
    // For people the summary line below says it; for programs (--json, --events) stderr does.
    if (outcome.error && !forPeople)
      io.stderr.write(`a2a-bench run: status error, no score [${outcome.error.code}]: ${outcome.error.message}\n`);
    const exitCode = outcome.interrupted ? EXIT_INTERRUPTED : outcome.exitCode;
    if (collector) io.stdout.write(summaryLine(options, outcome, exitCode, collector.summary));
    if (forPeople)
      io.stdout.write(summaryFor({ interrupted: outcome.interrupted, error: outcome.error, results: outcome.results }));
    return exitCode;
  } catch (err) {
    // Found before the items (e.g. a benchmark's tools missing while loading): an error, not a score.
    if (!(err instanceof InfrastructureError)) throw err;
    if (!forPeople) io.stderr.write(`a2a-bench run: status error, no score [${err.code}]: ${err.message}\n`);
    if (collector) io.stdout.write(errorSummaryLine(options, err));
    if (forPeople) {
      progress.close();
      io.stdout.write(summaryFor({ interrupted: false, error: { code: err.code, message: err.message } }));
    }
    return EXIT_INFRASTRUCTURE;
  } finally {
    progress.close(); // restores the cursor if the run threw with the bar up
    if (!finished && removeIfUnused(options.out, outState))
      logger.debug({ out: options.out }, "nothing written; output directory removed");
    stops.dispose();
    if (stops.signal.aborted) {
      // Keep-alive sockets of the A2A client must not delay a requested stop.
      setTimeout(() => process.exit(EXIT_INTERRUPTED), STOP_GRACE_MS).unref();
    }
  }
}

export const command: CliCommand = {
  name: "run",
  get summary() {
    return `run a benchmark (${knownBenchmarks().join(", ")}) against a participant agent, in the sandbox`;
  },
  usage: usageText(),
  run: runCommand,
  // A run allocates fast and keeps little: its peak memory must not grow with its number of completions.
  processSetup: useBatchHeapPolicy,
};
