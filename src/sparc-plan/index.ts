/**
 * The SPARC 2.0 plan's library facade: the plan's function and type names (`runBenchmark`,
 * `runHumanEval`, `BenchmarkConfig`, ...) over a2a-bench's runner core, so code written against the
 * plan compiles against a2a-bench. The package entry (`src/index.ts`) re-exports what
 * docs/benchmarks/sparc.md documents of it.
 */
export { runBenchmark, runHumanEval, runSWEBench, runRedCode, runSparc, PLAN_CONFIG_FILE } from "./run-benchmark.js";
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
