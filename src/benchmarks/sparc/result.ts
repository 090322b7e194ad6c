/**
 * The plan's `BenchmarkResult`, built from our result rows, validated by
 * `schemas/sparc_benchmark_result.schema.json` and written atomically.
 */
import { closeSync, fsyncSync, mkdirSync, openSync, renameSync, rmSync, writeFileSync } from "node:fs";
import { basename, dirname, join } from "node:path";
import { randomBytes } from "node:crypto";
import { writeJsonAtomic } from "../../util/atomic-write.js";
import { assertValid } from "../../util/schema.js";
import type { SparcBenchmarkType, SparcLanguage } from "./config.js";
import {
  OUR_METRIC_DEFINITIONS,
  PLAN_METRIC_DEFINITIONS,
  byLanguage,
  ourMetrics,
  planMetrics,
  type SparcMetrics,
} from "./metrics.js";
import type { SparcRow, SparcStatus } from "./row.js";

export const SPARC_RESULT_SCHEMA = "sparc_benchmark_result.schema.json";

/** One test's result: the plan's keys plus `language` and `status`. */
export interface SparcTestResult {
  testId: string;
  passed: boolean;
  /** Milliseconds. */
  executionTime: number;
  output?: string;
  error?: string;
  language?: SparcLanguage;
  status?: SparcStatus;
}

/** The plan's `BenchmarkResult`, plus our extensions (all optional to plan readers). */
export interface SparcBenchmarkResult {
  benchmarkType: SparcBenchmarkType;
  benchmarkName: string;
  totalTests: number;
  passedTests: number;
  failedTests: number;
  skippedTests: number;
  metrics: SparcMetrics;
  planMetrics?: SparcMetrics;
  metricDefinitions?: Record<string, string>;
  byLanguage?: Partial<Record<SparcLanguage, { executed: number; passed: number }>>;
  runId?: string;
  testResults: SparcTestResult[];
}

export interface BuildResultOptions {
  type: SparcBenchmarkType;
  name: string;
  /** Also compute the plan's formulas. */
  planMetrics: boolean;
  runId?: string;
}

/** Build the result; rows may come in any order (the runner's concurrency), tests are listed by id order of arrival. */
export function buildSparcResult(rows: readonly SparcRow[], opts: BuildResultOptions): SparcBenchmarkResult {
  const testResults: SparcTestResult[] = rows.map((r) => ({
    testId: r.id,
    passed: r.passed,
    executionTime: r.execution_ms,
    output: r.output,
    ...(r.error ? { error: r.error } : {}),
    language: r.language,
    status: r.status,
  }));
  const skipped = rows.filter((r) => r.status === "skipped").length;
  const passed = rows.filter((r) => r.passed).length;
  const result: SparcBenchmarkResult = {
    benchmarkType: opts.type,
    benchmarkName: opts.name,
    totalTests: rows.length,
    passedTests: passed,
    failedTests: rows.length - passed - skipped,
    skippedTests: skipped,
    metrics: ourMetrics(rows),
    metricDefinitions: { ...OUR_METRIC_DEFINITIONS },
    byLanguage: byLanguage(rows),
    testResults,
  };
  if (opts.planMetrics) {
    // The plan never skipped: its formulas see every result it recorded.
    result.planMetrics = planMetrics(opts.type, rows.length, testResults);
    for (const [k, v] of Object.entries(PLAN_METRIC_DEFINITIONS)) result.metricDefinitions![`plan.${k}`] = v;
  }
  if (opts.runId !== undefined) result.runId = opts.runId;
  return result;
}

/** Validate against the result schema and write atomically (pretty JSON). */
export async function writeSparcResult(path: string, result: SparcBenchmarkResult): Promise<void> {
  assertValid(SPARC_RESULT_SCHEMA, result, "SPARC BenchmarkResult");
  await writeJsonAtomic(path, result);
}

/**
 * Synchronous twin of {@link writeSparcResult}, for the runner's synchronous
 * `aggregate` hook: same temp-file + fsync + rename discipline as
 * writeFileAtomic, so readers never see a partial file.
 */
export function writeSparcResultSync(path: string, result: SparcBenchmarkResult): void {
  assertValid(SPARC_RESULT_SCHEMA, result, "SPARC BenchmarkResult");
  mkdirSync(dirname(path), { recursive: true });
  const tmp = join(dirname(path), `.${basename(path)}.${process.pid}.${randomBytes(4).toString("hex")}.tmp`);
  try {
    const fd = openSync(tmp, "wx", 0o644);
    try {
      writeFileSync(fd, JSON.stringify(result, null, 2) + "\n");
      fsyncSync(fd);
    } finally {
      closeSync(fd);
    }
    renameSync(tmp, path);
  } catch (err) {
    rmSync(tmp, { force: true });
    throw err;
  }
}
