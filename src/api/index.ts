/** The typed library API (`import { runBenchmark, ... } from "a2a-bench"`), SPARC 2.0 plan names. */
export { runBenchmark, runHumanEval, runSWEBench, runRedCode, runSparc, API_CONFIG_FILE } from "./run-benchmark.js";
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
