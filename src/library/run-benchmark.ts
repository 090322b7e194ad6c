/**
 * The library's entry to the engine: a request config checked and resolved
 * once, its benchmark looked up in the registry, the run executed with the
 * real sandbox and an A2A participant unless the caller gives others, and a
 * run without a score turned into an InfrastructureError.
 */
import { readFile } from "node:fs/promises";
import type { Logger } from "../util/logger.js";
import { silentLogger } from "../util/logger.js";
import { BenchError } from "../util/errors.js";
import { InfrastructureError } from "../util/infrastructure-error.js";
import type { ResultsDocument } from "../results-file/document.js";
import type { AssessmentConfig } from "../request-config/config.js";
import { getBenchmark, offeredInteractions } from "../benchmarks/index.js";
import { executeRun, type RunDependencies, type RunPaths } from "../runner/run-benchmark.js";
import { resolveRunOptions, type RunOptions } from "../runner/options.js";
import { openRunParticipant, openRunSandbox } from "../runner/run-dependencies.js";
import type { ProgressReporter } from "../runner/progress.js";

/** {@link runBenchmark}'s choices beside the config. Every one is optional. */
export interface RunBenchmarkOptions {
  /** Output directory (relative to `cwd`); default `<cwd>/results/<benchmark>/<run_id>`. */
  out?: string;
  /** Base of a relative `out`; default `process.cwd()`. */
  cwd?: string;
  /** The run's structured log; default silent. */
  logger?: Logger;
  /** Progress of the run as events (see runner/progress.ts, e.g. `eventLineReporter(stream)`). */
  progress?: ProgressReporter;
  /** Aborting stops the run: no new item, the checkpoint written; the call rejects with `E_INTERRUPTED`. */
  signal?: AbortSignal;
  /** Refuse to run below full isolation (bwrap, e2b, docker): the run ends with status error, no score. */
  requireFullIsolation?: boolean;
  /** Environment for the participant's reply cap; default `process.env`. */
  env?: NodeJS.ProcessEnv;
  /** The run's sandbox; default the one `config.sandbox` names (runner/run-dependencies.ts). */
  createSandbox?: RunDependencies["createSandbox"];
  /** The participant; default an A2A client of `config.agent`. */
  createParticipant?: RunDependencies["createParticipant"];
}

/** A run that ended with a score. */
export interface BenchmarkRun {
  /** The resolved options the run used (the config as results.json records it, plus `out`). */
  options: RunOptions;
  /** results.json's content: status `ok`, rows and aggregate. */
  results: ResultsDocument;
  paths: RunPaths;
}

/**
 * Run a benchmark from a request config (schemas/assessment_request.schema.json; the
 * same keys as the green agent's `config` and `a2a-bench run`'s flags).
 *
 * Resolves to the scored run. Rejects with ValidationError (a bad config, every
 * problem listed), UsageError (a benchmark no plug-in is registered for),
 * InfrastructureError when our side failed — the run has no score, and
 * results.json (when written) says why — and BenchError `E_INTERRUPTED` when
 * `signal` stopped it (its checkpoint is kept for `resume`).
 */
export async function runBenchmark(config: AssessmentConfig, options: RunBenchmarkOptions = {}): Promise<BenchmarkRun> {
  const run = resolveRunOptions(offeredInteractions, config, {
    ...(options.out !== undefined ? { out: options.out } : {}),
    ...(options.cwd !== undefined ? { cwd: options.cwd } : {}),
  });
  const def = await getBenchmark(run.benchmark);
  const logger = options.logger ?? silentLogger();
  const outcome = await executeRun(def, run, {
    logger,
    createSandbox: options.createSandbox ?? ((o) => openRunSandbox(o, logger)),
    createParticipant: options.createParticipant ?? ((o) => openRunParticipant(o, logger, options.env)),
    ...(options.progress ? { progress: options.progress } : {}),
    ...(options.signal ? { signal: options.signal } : {}),
    ...(options.requireFullIsolation ? { requireFullIsolation: { optIn: "run without requireFullIsolation" } } : {}),
  });
  if (outcome.interrupted) {
    throw new BenchError("E_INTERRUPTED", `the run was stopped; its checkpoint is ${outcome.paths.checkpoint}`);
  }
  if (outcome.error || !outcome.results) {
    const error = outcome.error ?? { code: "E_INFRASTRUCTURE_SHARE" as const, message: "the run wrote no results" };
    throw new InfrastructureError(
      error.code,
      `run ${run.run_id} ended with status error, no score: ${error.message} (${outcome.paths.results})`,
    );
  }
  // The engine keeps row summaries only; the library's caller gets results.json as written, full rows included.
  const results = JSON.parse(await readFile(outcome.paths.results, "utf8")) as ResultsDocument;
  return { options: run, results, paths: outcome.paths };
}
