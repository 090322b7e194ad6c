/**
 * Run a SPARC 2.0 BenchmarkConfig (the plan's test cases: programs with their
 * expected output) as a library call. A thin caller of the engine's library
 * entry (library/run-benchmark.ts `runBenchmark`), the same engine the CLI
 * (`run sparc`) and the green agent use: the config is validated, written into
 * the run directory as `sparc_config.json` (the run's record of what it ran),
 * and the `sparc` benchmark runs with the real sandbox. No CLI flag parsing
 * on the way: the request config is built here and resolved once by the engine.
 */
import { isAbsolute, join, resolve } from "node:path";
import { mkdir, readFile } from "node:fs/promises";
import { writeJsonAtomic } from "../util/atomic-write.js";
import { createLogger, silentLogger, type Logger } from "../util/logger.js";
import { generateRunId } from "../request-config/run-id.js";
import { defaultRunOut } from "../runner/options.js";
import { runBenchmark } from "../library/run-benchmark.js";
import { eventLineReporter } from "../runner/progress.js";
import { parseSparcConfig, resolveFileInputs, type PackageLanguage } from "../benchmarks/sparc/config.js";
import { SPARC_RESULT_FILE } from "../benchmarks/sparc/definition.js";
import { writeSparcResult } from "../benchmarks/sparc/result.js";
import type { AssessmentConfig } from "../request-config/config.js";
import type { BenchmarkConfig, BenchmarkOptions, BenchmarkResult } from "./types.js";

/** File the plan facade writes the given config to, inside the run directory. */
export const PLAN_CONFIG_FILE = "sparc_config.json";

function mergePackages(
  a: Partial<Record<PackageLanguage, string[]>> | undefined,
  b: Partial<Record<PackageLanguage, string[]>> | undefined,
): Partial<Record<PackageLanguage, string[]>> | undefined {
  if (!a && !b) return undefined;
  const out: Partial<Record<PackageLanguage, string[]>> = {};
  for (const lang of ["python", "javascript"] as const) {
    const list = [...new Set([...(a?.[lang] ?? []), ...(b?.[lang] ?? [])])];
    if (list.length > 0) out[lang] = list;
  }
  return out;
}

function loggerFor(options: BenchmarkOptions): Logger {
  if (options.logger) return options.logger;
  if (!options.verbose) return silentLogger();
  // The plan's `verbose` printed progress; here it is the runner's structured log on a stream the caller picks.
  return createLogger({ component: "sparc", destination: options.logStream ?? process.stderr, pretty: false });
}

/**
 * Run the SPARC config `config` under the defaults of its `type` (humaneval,
 * swebench, redcode: the plan's per-runner timeout and label). Resolves to the
 * plan-shaped result (`<out>/sparc_result.json`). Rejects with ValidationError
 * for a bad config (every problem, naming case and key), a package error
 * before any test case, InfrastructureError when our side failed (no score),
 * BenchError `E_INTERRUPTED` when `signal` stopped the run.
 */
export async function runSparcConfig(
  config: BenchmarkConfig,
  options: BenchmarkOptions = {},
): Promise<BenchmarkResult> {
  const cwd = process.cwd();
  const checked = parseSparcConfig(config, "BenchmarkConfig");
  const resolved = await resolveFileInputs(checked, cwd);
  const packages = mergePackages(resolved.packages, options.packages);
  const runConfig: BenchmarkConfig = { ...resolved, ...(packages ? { packages } : {}) };
  parseSparcConfig(runConfig, "BenchmarkConfig (with options.packages)");

  // The run id is fixed here, once: it names the run directory the config file is written to, and the
  // engine keeps it (a config that names its run id is not given another).
  const runId = options.runId ?? generateRunId("sparc");
  const out = options.out ? resolve(options.out) : defaultRunOut({ benchmark: "sparc", run_id: runId }, cwd);
  await mkdir(out, { recursive: true });
  const configPath = join(out, PLAN_CONFIG_FILE);
  await writeJsonAtomic(configPath, runConfig);

  const request: AssessmentConfig = {
    benchmark: "sparc",
    run_id: runId,
    sparc_config: configPath,
    sparc_metrics: options.sparcMetrics === true,
    ...(options.sandbox ? { sandbox: options.sandbox } : {}),
    ...(options.concurrency ? { concurrency: options.concurrency } : {}),
    ...(options.cacheDir ? { sparc_package_cache_dir: options.cacheDir } : {}),
    ...(options.npmRegistry ? { sparc_npm_registry: options.npmRegistry } : {}),
    ...(options.pipIndexUrl ? { sparc_pip_index_url: options.pipIndexUrl } : {}),
  };
  await runBenchmark(request, {
    out,
    logger: loggerFor(options),
    ...(options.stream ? { progress: eventLineReporter(options.eventStream ?? process.stdout) } : {}),
    ...(options.signal ? { signal: options.signal } : {}),
  });
  const result = JSON.parse(await readFile(join(out, SPARC_RESULT_FILE), "utf8")) as BenchmarkResult;
  // The plan's outputFile is a library option only: a run's own copy is <out>/sparc_result.json, and no
  // request-controlled key may name a file to write (the green agent passes configs through).
  if (options.outputFile)
    await writeSparcResult(
      isAbsolute(options.outputFile) ? options.outputFile : resolve(cwd, options.outputFile),
      result,
    );
  return result;
}

/**
 * @deprecated The SPARC 2.0 plan's name; it runs a SPARC config (not the
 * HumanEval benchmark: for that, `runBenchmark({ benchmark: "humaneval", ... })`).
 * Same as `runSparcConfig({ ...config, type: "humaneval" }, options)`.
 */
export function runHumanEval(config: BenchmarkConfig, options: BenchmarkOptions = {}): Promise<BenchmarkResult> {
  return runSparcConfig({ ...config, type: "humaneval" }, options);
}

/**
 * @deprecated The SPARC 2.0 plan's name; it runs a SPARC config (not SWE-bench:
 * for that, `runBenchmark({ benchmark: "swebench", ... })`).
 * Same as `runSparcConfig({ ...config, type: "swebench" }, options)`.
 */
export function runSWEBench(config: BenchmarkConfig, options: BenchmarkOptions = {}): Promise<BenchmarkResult> {
  return runSparcConfig({ ...config, type: "swebench" }, options);
}

/**
 * @deprecated The SPARC 2.0 plan's name; it runs a SPARC config (not
 * RedCode-Exec: for that, `runBenchmark({ benchmark: "redcode", ... })`). The
 * plan's extra bandit/eslint scan is not reproduced.
 * Same as `runSparcConfig({ ...config, type: "redcode" }, options)`.
 */
export function runRedCode(config: BenchmarkConfig, options: BenchmarkOptions = {}): Promise<BenchmarkResult> {
  return runSparcConfig({ ...config, type: "redcode" }, options);
}
