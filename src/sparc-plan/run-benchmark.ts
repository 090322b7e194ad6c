/**
 * The SPARC 2.0 plan's runner functions as a typed library API. Each is a
 * thin caller of the same runner core the CLI (`run sparc`) and the green
 * agent use: the config is validated, written into the run directory as
 * `sparc_config.json` (the run's record of what it ran), and the `sparc`
 * benchmark runs through `runner/run-benchmark.ts` with the real sandbox.
 */
import { isAbsolute, join, resolve } from "node:path";
import { mkdir, readFile } from "node:fs/promises";
import { writeJsonAtomic } from "../util/atomic-write.js";
import { BenchError, ValidationError } from "../util/errors.js";
import { createLogger, silentLogger, type Logger } from "../util/logger.js";
import { generateRunId } from "../request-config/run-id.js";
import { resolveRunOptions } from "../runner/run-args.js";
import { runBenchmark as runCore } from "../runner/run-benchmark.js";
import { eventLineReporter } from "../runner/progress.js";
import { parseSparcConfig, resolveFileInputs, type PackageLanguage } from "../benchmarks/sparc/config.js";
import { sparcBenchmark, SPARC_RESULT_FILE } from "../benchmarks/sparc/definition.js";
import { writeSparcResult } from "../benchmarks/sparc/result.js";
import type { BenchmarkConfig, BenchmarkOptions, BenchmarkResult, BenchmarkType } from "./types.js";

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
 * Run a SPARC config under the defaults of `type` (the plan's per-runner
 * behaviour: its runHumanEval labelled its result "humaneval" whatever the
 * config said). Resolves to the plan-shaped result; throws ValidationError
 * for a bad config, a package error before any test, BenchError
 * `E_INTERRUPTED` when `signal` stopped the run.
 */
export async function runSparc(
  config: BenchmarkConfig,
  type: BenchmarkType,
  options: BenchmarkOptions = {},
): Promise<BenchmarkResult> {
  const cwd = process.cwd();
  const checked = parseSparcConfig({ ...config, type }, "BenchmarkConfig");
  const resolved = await resolveFileInputs(checked, cwd);
  const packages = mergePackages(resolved.packages, options.packages);
  const runConfig: BenchmarkConfig = { ...resolved, ...(packages ? { packages } : {}) };
  parseSparcConfig(runConfig, "BenchmarkConfig (with options.packages)");

  const runId = options.runId ?? generateRunId("sparc");
  const out = options.out ? resolve(options.out) : join(cwd, "results", "sparc", runId);
  await mkdir(out, { recursive: true });
  const configPath = join(out, PLAN_CONFIG_FILE);
  await writeJsonAtomic(configPath, runConfig);

  const flags: Record<string, unknown> = {
    sparc_config: configPath,
    sparc_metrics: options.sparcMetrics === true,
    run_id: runId,
    ...(options.sandbox ? { sandbox: options.sandbox } : {}),
    ...(options.concurrency ? { concurrency: options.concurrency } : {}),
    ...(options.cacheDir ? { sparc_package_cache_dir: options.cacheDir } : {}),
    ...(options.npmRegistry ? { sparc_npm_registry: options.npmRegistry } : {}),
    ...(options.pipIndexUrl ? { sparc_pip_index_url: options.pipIndexUrl } : {}),
  };
  // The same validation (schema defaults included) as `a2a-bench run sparc`.
  const runOptions = resolveRunOptions({ benchmark: "sparc", configFile: undefined, out, flags }, {}, cwd);
  const logger = loggerFor(options);
  const outcome = await runCore(sparcBenchmark, runOptions, {
    logger,
    ...(options.stream ? { progress: eventLineReporter(options.eventStream ?? process.stdout) } : {}),
    ...(options.signal ? { signal: options.signal } : {}),
    createSandbox: async (o) => {
      const { createSandbox } = await import("../sandbox/index.js");
      const { sandboxHiddenPaths } = await import("../runner/sandbox-hidden-paths.js");
      return createSandbox({
        backend: o.sandbox ?? "local",
        logger,
        docker: { owner: o.run_id },
        hiddenPaths: sandboxHiddenPaths(o),
      });
    },
  });
  if (outcome.interrupted) {
    throw new BenchError("E_INTERRUPTED", `the run was stopped; its checkpoint is ${outcome.paths.checkpoint}`);
  }
  // Infrastructure failed (run-verdict.ts): an error, never a result.
  if (outcome.error)
    throw new BenchError(outcome.error.code, `run ${runId} ended with status error: ${outcome.error.message}`);
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

/** The plan's HumanEval runner: run `config`'s test cases with the humaneval defaults (30 s timeout). */
export function runHumanEval(config: BenchmarkConfig, options: BenchmarkOptions = {}): Promise<BenchmarkResult> {
  return runSparc(config, "humaneval", options);
}

/** The plan's SWE-bench runner: run `config`'s test cases with the swebench defaults (60 s timeout). */
export function runSWEBench(config: BenchmarkConfig, options: BenchmarkOptions = {}): Promise<BenchmarkResult> {
  return runSparc(config, "swebench", options);
}

/**
 * The plan's RedCode runner: run `config`'s test cases with the redcode
 * defaults. The plan's extra bandit/eslint scan is not reproduced (see the
 * SPARC notes); for the RedCode benchmark itself use `run redcode`.
 */
export function runRedCode(config: BenchmarkConfig, options: BenchmarkOptions = {}): Promise<BenchmarkResult> {
  return runSparc(config, "redcode", options);
}

/** The plan's benchmark manager: dispatch on `config.type`. */
export function runBenchmark(config: BenchmarkConfig, options: BenchmarkOptions = {}): Promise<BenchmarkResult> {
  const type = config.type;
  switch (type) {
    case "humaneval":
      return runHumanEval(config, options);
    case "swebench":
      return runSWEBench(config, options);
    case "redcode":
      return runRedCode(config, options);
    default: {
      // Exhaustive for typed callers; untyped (JSON) callers get the schema's wording.
      const unknown: never = type;
      return Promise.reject(
        new ValidationError("BenchmarkConfig", [
          `/type: must be one of ["humaneval","swebench","redcode"] (got ${JSON.stringify(unknown)})`,
        ]),
      );
    }
  }
}
