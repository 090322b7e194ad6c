/**
 * `a2a-bench run <benchmark> [options]`: parse (pure), validate once, then
 * run the benchmark with the real sandbox and an A2A participant. Stops
 * promptly on SIGTERM or when a piped stdin closes (the green agent's
 * death): no new item, sandboxes killed, checkpoint written, exit 143.
 */
import { fstatSync } from "node:fs";
import type { CliCommand, CliIo } from "./types.js";
import { parseRunArgs, readConfigFile, resolveRunOptions, usageText } from "../runner/config.js";
import { getBenchmark } from "../benchmarks/index.js";
import { createLogger } from "../util/logger.js";
import { runBenchmark, EXIT_INTERRUPTED } from "../runner/run-benchmark.js";
import { eventLineReporter, ttyReporter } from "../runner/progress.js";
import { createA2AParticipant } from "../runner/a2a-participant.js";
import type { RunOptions } from "../runner/options.js";
import type { Sandbox } from "../sandbox/types.js";
import type { Logger } from "../util/logger.js";

/** After a stop, how long pending handles (sockets, timers) may keep the process alive, ms. */
export const STOP_GRACE_MS = 2000;

async function openSandbox(options: RunOptions, logger: Logger): Promise<Sandbox> {
  // Imported lazily so `run --help` does not load the sandbox backends.
  const { createSandbox } = await import("../sandbox/index.js");
  return createSandbox({ backend: options.sandbox ?? "local", logger, ...(options.concurrency ? { concurrency: options.concurrency } : {}), docker: { owner: options.run_id } });
}

// stdin closing means our parent (the green agent) is gone — but only a pipe says so; a TTY or /dev/null does not.
function stdinIsPipe(): boolean {
  try {
    const st = fstatSync(0);
    return st.isFIFO() || st.isSocket();
  } catch {
    return false;
  }
}

export async function runCommand(argv: string[], io: CliIo): Promise<number> {
  const args = parseRunArgs(argv);
  await getBenchmark(args.benchmark); // unknown benchmark → usage error with the known list, before anything else
  const fileConfig = args.configFile ? await readConfigFile(args.configFile) : {};
  const options = resolveRunOptions(args, fileConfig);
  const def = await getBenchmark(options.benchmark);
  const logger = createLogger({ component: "runner", destination: io.stderr });
  const progress = io.stdout.isTTY ? ttyReporter(io.stdout) : eventLineReporter(io.stdout);

  const controller = new AbortController();
  const stop = (reason: string) => (): void => {
    if (controller.signal.aborted) return;
    logger.warn({ reason }, "stopping the run");
    controller.abort(new Error(reason));
  };
  const onTerm = stop("SIGTERM");
  const onInt = stop("SIGINT");
  const onStdinEnd = stop("stdin closed");
  process.once("SIGTERM", onTerm);
  process.once("SIGINT", onInt);
  const watchStdin = stdinIsPipe();
  if (watchStdin) {
    process.stdin.on("end", onStdinEnd);
    process.stdin.on("close", onStdinEnd);
    process.stdin.resume(); // data is discarded; we only need to see the end
  }
  try {
    const outcome = await runBenchmark(def, options, {
      logger,
      progress,
      signal: controller.signal,
      createSandbox: (o) => openSandbox(o, logger),
      createParticipant: (o) =>
        createA2AParticipant({ url: o.agent, timeoutMs: (o.agent_timeout_seconds ?? 120) * 1000, logger }),
    });
    if (!outcome.interrupted) logger.info({ results: outcome.paths.results }, "run finished");
    return outcome.interrupted ? EXIT_INTERRUPTED : outcome.exitCode;
  } finally {
    process.removeListener("SIGTERM", onTerm);
    process.removeListener("SIGINT", onInt);
    if (watchStdin) {
      process.stdin.removeListener("end", onStdinEnd);
      process.stdin.removeListener("close", onStdinEnd);
      process.stdin.pause();
      process.stdin.unref?.();
    }
    if (controller.signal.aborted) {
      // Keep-alive sockets of the A2A client must not delay a requested stop.
      setTimeout(() => process.exit(EXIT_INTERRUPTED), STOP_GRACE_MS).unref();
    }
  }
}

export const command: CliCommand = {
  name: "run",
  summary: "run a benchmark (humaneval, swebench, redcode, sparc) against a participant agent, in the sandbox",
  usage: usageText(),
  run: runCommand,
};
