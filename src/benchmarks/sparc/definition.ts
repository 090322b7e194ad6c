/**
 * The `sparc` benchmark plugged into the generic runner: items are the test
 * cases of a SPARC 2.0 config file (`sparc_config`, CLI `--config`); packages
 * are installed in `loadItems`, i.e. before any test runs, so an unreachable
 * package source fails the run up front; each item is executed in the sandbox
 * and judged by the plan's rule; `aggregate` computes the four metrics and
 * writes the plan's `BenchmarkResult` file next to results.json.
 */
import { readFileSync } from "node:fs";
import { readFile } from "node:fs/promises";
import { createHash } from "node:crypto";
import { join, resolve } from "node:path";
import type { BenchmarkDefinition, BenchmarkItem, EvaluateContext, ItemResult } from "../../runner/benchmark.js";
import type { RunOptions } from "../../runner/options.js";
import type { Logger } from "../../util/logger.js";
import { BenchError, UsageError } from "../../util/errors.js";
import {
  loadSparcConfig,
  parseSparcConfig,
  type PackageLanguage,
  type SparcBenchmarkConfig,
  type SparcTestCase,
} from "./config.js";
import { runTestCase } from "./execute-case.js";
import { installPackages, type InstallOptions, type InstalledPackages } from "./packages/install.js";
import { buildSparcResult, writeSparcResultSync, type SparcBenchmarkResult } from "./result.js";
import { isSparcRow, type SparcRow } from "./row.js";
import { benchmarkNeedsParticipant } from "../needs-participant.js";
import { DEFAULT_SANDBOX_BACKEND, findSandboxBackend } from "../../sandbox/registry.js";

/** File name of the plan-shaped result in the run's out directory. */
export const SPARC_RESULT_FILE = "sparc_result.json";

export interface SparcItem extends BenchmarkItem {
  testCase: SparcTestCase;
  type: SparcBenchmarkConfig["type"];
  name: string;
  packages: Partial<Record<PackageLanguage, InstalledPackages>>;
}

/** Installer options from run options (sources, cache dir). */
export function installOptionsFrom(options: RunOptions, logger: Logger, signal?: AbortSignal): InstallOptions {
  return {
    ...(options.sparc_package_cache_dir ? { cacheDir: options.sparc_package_cache_dir } : {}),
    ...(options.sparc_npm_registry ? { npmRegistry: options.sparc_npm_registry } : {}),
    ...(options.sparc_pip_index_url ? { pipIndexUrl: options.sparc_pip_index_url } : {}),
    logger,
    ...(signal ? { signal } : {}),
  };
}

/**
 * Install the config's packages, one set per language; python first (the
 * source most likely to be offline), each failing before any test runs.
 */
export async function installConfigPackages(
  config: SparcBenchmarkConfig,
  install: InstallOptions,
): Promise<Partial<Record<PackageLanguage, InstalledPackages>>> {
  const out: Partial<Record<PackageLanguage, InstalledPackages>> = {};
  for (const language of ["python", "javascript"] as const) {
    const specs = config.packages?.[language] ?? [];
    const installed = await installPackages(specs, language, install);
    if (installed) out[language] = installed;
  }
  return out;
}

function requireConfigPath(options: RunOptions): string {
  if (!options.sparc_config)
    throw new UsageError("sparc needs a SPARC config file: --config <file.json> (key sparc_config)");
  return options.sparc_config;
}

/** Build the plan-shaped result of a run from its rows (type and name from the config file). */
export function sparcResultFromRows(rows: readonly ItemResult[], options: RunOptions): SparcBenchmarkResult {
  const path = requireConfigPath(options);
  // Synchronous on purpose: called from the runner's synchronous aggregate hook; the file was validated at load.
  const config = parseSparcConfig(JSON.parse(readFileSync(path, "utf8")) as unknown, path);
  const sparcRows: SparcRow[] = rows.filter(isSparcRow);
  return buildSparcResult(sparcRows, {
    type: config.type,
    name: config.name,
    planMetrics: options.sparc_metrics,
    runId: options.run_id,
  });
}

export const sparcBenchmark: BenchmarkDefinition<SparcItem> = {
  name: "sparc",

  async describeDataset(options: RunOptions) {
    // The config file is the dataset: resume refuses a run whose config changed.
    const path = resolve(requireConfigPath(options));
    return {
      path,
      sha256: createHash("sha256")
        .update(await readFile(path))
        .digest("hex"),
    };
  },

  async loadItems(options: RunOptions, logger: Logger): Promise<SparcItem[]> {
    const config = await loadSparcConfig(requireConfigPath(options));
    const backend = options.sandbox ?? DEFAULT_SANDBOX_BACKEND;
    const mountsHostDirs = findSandboxBackend(backend)?.capabilities.has("host-binds") === true;
    if (!mountsHostDirs && Object.values(config.packages ?? {}).some((list) => list.length > 0)) {
      // The cache lives on this host; a backend that cannot mount host directories (e2b: remote) cannot reach it.
      throw new BenchError(
        "E_SPARC_PACKAGES_E2B",
        `SPARC package installs need a sandbox that mounts host directories (--sandbox local); the ${backend} backend cannot mount the host package cache`,
      );
    }
    const packages = await installConfigPackages(config, installOptionsFrom(options, logger));
    return config.testCases.map((testCase) => ({
      id: testCase.id,
      testCase,
      type: config.type,
      name: config.name,
      packages,
    }));
  },

  needsParticipant: benchmarkNeedsParticipant,

  async evaluate(item: SparcItem, ctx: EvaluateContext): Promise<ItemResult> {
    const row = await runTestCase(item.testCase, {
      type: item.type,
      name: item.name,
      sandbox: ctx.sandbox,
      packages: item.packages,
      signal: ctx.signal,
    });
    // What the plan's verbose mode printed per case, as a structured line.
    ctx.logger.info(
      { testId: row.id, language: row.language, status: row.status, executionTime: row.execution_ms },
      "sparc test case finished",
    );
    return row;
  },

  aggregate(rows: ItemResult[], options: RunOptions): Record<string, unknown> {
    const result = sparcResultFromRows(rows, options);
    writeSparcResultSync(join(options.out, SPARC_RESULT_FILE), result);
    const failureModes: Record<string, number> = {};
    for (const r of rows) if (r.failure_mode) failureModes[r.failure_mode] = (failureModes[r.failure_mode] ?? 0) + 1;
    const executed = result.totalTests - result.skippedTests;
    return {
      // Our definitions at the top level, where results.json keeps them for every benchmark; null when nothing ran.
      accuracy: executed > 0 ? result.metrics.accuracy : null,
      efficiency: executed > 0 ? result.metrics.efficiency : null,
      safety: executed > 0 ? result.metrics.safety : null,
      adaptability: executed > 0 ? result.metrics.adaptability : null,
      passed: result.passedTests,
      failed: result.failedTests,
      skipped: result.skippedTests,
      total: result.totalTests,
      failure_modes: failureModes,
      sparc: {
        benchmarkType: result.benchmarkType,
        benchmarkName: result.benchmarkName,
        metrics: result.metrics,
        ...(result.planMetrics ? { planMetrics: result.planMetrics } : {}),
        metricDefinitions: result.metricDefinitions,
        byLanguage: result.byLanguage,
        resultFile: SPARC_RESULT_FILE,
      },
    };
  },
};
