/**
 * The library API's types, named as in the SPARC 2.0 plan (`BenchmarkConfig`,
 * `BenchmarkOptions`, `BenchmarkResult`, `TestCase`, `TestResult`) so code
 * written against the plan compiles against a2a-bench. a2a-bench additions
 * are optional and marked as such.
 */
import type { Writable } from "node:stream";
import type { Logger } from "../util/logger.js";
import type {
  SparcBenchmarkConfig,
  SparcBenchmarkType,
  SparcTestCase,
  PackageLanguage,
} from "../benchmarks/sparc/config.js";
import type { SparcBenchmarkResult, SparcTestResult } from "../benchmarks/sparc/result.js";
import type { SparcMetrics } from "../benchmarks/sparc/metrics.js";
import type { SandboxBackendName } from "../sandbox/registry.js";

export type BenchmarkType = SparcBenchmarkType;
export type BenchmarkConfig = SparcBenchmarkConfig;
export type TestCase = SparcTestCase;
export type BenchmarkResult = SparcBenchmarkResult;
export type TestResult = SparcTestResult;
export type BenchmarkMetrics = SparcMetrics;

/** The plan's options, plus a2a-bench's (all optional). */
export interface BenchmarkOptions {
  /** Plan: log progress (pino JSON lines to `logStream`, default stderr). */
  verbose?: boolean;
  /** Plan: stream progress while running; here the runner's `A2A_EVENT:{json}` lines are written to `eventStream` (default stdout). */
  stream?: boolean;
  /** Plan: also write the BenchmarkResult JSON to this path (atomically). */
  outputFile?: string;

  /** a2a-bench: also compute the plan's original metric formulas into `planMetrics`. Default false. */
  sparcMetrics?: boolean;
  /** a2a-bench: run directory (results.json, events, sparc_result.json); default `results/sparc/<runId>` under the cwd. */
  out?: string;
  /** a2a-bench: run id; generated when absent. */
  runId?: string;
  /** a2a-bench: extra packages installed before the run, merged with the config's `packages`. */
  packages?: Partial<Record<PackageLanguage, string[]>>;
  /** a2a-bench: sandbox backend. Default "local". */
  sandbox?: SandboxBackendName;
  /** a2a-bench: test cases run at once. Default: CPU cores. */
  concurrency?: number;
  /** a2a-bench: package cache root (see installPackages). */
  cacheDir?: string;
  /** a2a-bench: npm registry URL. */
  npmRegistry?: string;
  /** a2a-bench: Python package index URL. */
  pipIndexUrl?: string;
  /** a2a-bench: logger to use instead of the one `verbose` creates. */
  logger?: Logger;
  /** a2a-bench: where `verbose` logs go. Default process.stderr. */
  logStream?: Writable;
  /** a2a-bench: where `stream` events go. Default process.stdout. */
  eventStream?: Writable;
  /** a2a-bench: cancel the run. */
  signal?: AbortSignal;
}
