/**
 * SPARC 2.0 configs as a library: run a plan-shaped BenchmarkConfig
 * (`runSparcConfig`) and install its packages (`installPackages`), with the
 * plan's type names (`BenchmarkConfig`, `BenchmarkResult`, ...). The plan's
 * per-type runners (`runHumanEval`, `runSWEBench`, `runRedCode`) stay as
 * deprecated aliases of `runSparcConfig`. The package entry (`src/index.ts`)
 * re-exports these.
 */
export { runSparcConfig, runHumanEval, runSWEBench, runRedCode, PLAN_CONFIG_FILE } from "./run-sparc-config.js";
export { installPackages, type InstallPackagesOptions } from "./install-packages.js";
export type {
  BenchmarkConfig,
  BenchmarkOptions,
  BenchmarkResult,
  BenchmarkMetrics,
  BenchmarkType,
  TestCase,
  TestResult,
} from "./types.js";
export type { InstalledPackages } from "../benchmarks/sparc/packages/install.js";
export {
  PackageSourceUnreachableError,
  PackageNotFoundError,
  PackageInstallError,
} from "../benchmarks/sparc/packages/errors.js";
