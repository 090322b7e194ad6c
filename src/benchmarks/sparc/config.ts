/**
 * SPARC 2.0 `BenchmarkConfig` files: types and loading. The schema
 * `schemas/sparc_benchmark_config.schema.json` is the source of truth; these
 * types mirror it. Validation errors name the test case (index and id) and the
 * offending key, so a user with a 200-case file finds the bad one at once.
 */
import { readFile } from "node:fs/promises";
import { dirname, isAbsolute, resolve } from "node:path";
import { checkAgainst } from "../../util/schema.js";
import { InputFileError, ValidationError } from "../../util/errors.js";

/** The plan's benchmark types (they select the plan's defaults, not a different runner here). */
export type SparcBenchmarkType = "humaneval" | "swebench" | "redcode";
/** Languages a test case may be written in. */
export type SparcLanguage = "python" | "javascript" | "typescript";
/** Package ecosystems of `packages` / `installPackages`. */
export type PackageLanguage = "python" | "javascript";

export const SPARC_CONFIG_SCHEMA = "sparc_benchmark_config.schema.json";

/** One test case as the plan defines it. */
export interface SparcTestCase {
  id: string;
  /** Program text, or `file:<path>`. */
  input: string;
  expectedOutput: string;
  /** Default: python (the plan's default). */
  language?: SparcLanguage;
  /** Milliseconds; default: {@link planDefaultTimeoutMs}. */
  timeout?: number;
}

/** The plan's `BenchmarkConfig`, plus our `packages` extension. */
export interface SparcBenchmarkConfig {
  type: SparcBenchmarkType;
  name: string;
  description?: string;
  testCases: SparcTestCase[];
  /** a2a-bench extension: packages installed before any test runs. */
  packages?: Partial<Record<PackageLanguage, string[]>>;
}

/**
 * The plan's default per-case timeout, milliseconds: its SWE-bench runner used
 * 60 000, its HumanEval and RedCode runners 30 000.
 */
export function planDefaultTimeoutMs(type: SparcBenchmarkType): number {
  return type === "swebench" ? 60_000 : 30_000;
}

/** Rewrite `/testCases/3/timeout: ...` as `testCases[3] (id "x"): key "timeout": ...`. */
function nameTestCase(problem: string, value: unknown): string {
  const m = /^\/testCases\/(\d+)(?:\/([^:]+))?: (.*)$/.exec(problem);
  if (!m) return problem;
  const index = Number(m[1]);
  const cases = (value as { testCases?: unknown }).testCases;
  const tc = Array.isArray(cases) ? (cases[index] as { id?: unknown } | undefined) : undefined;
  const id = tc && typeof tc.id === "string" ? ` (id "${tc.id}")` : "";
  const key = m[2] ? ` key "${m[2]}":` : "";
  return `testCases[${index}]${id}:${key} ${m[3]}`;
}

/**
 * Validate a parsed config object. Throws {@link ValidationError} listing every
 * problem (schema findings and duplicate ids), each naming the test case.
 * @param source what to call the config in messages (a file path, "config").
 */
export function parseSparcConfig(value: unknown, source = "SPARC config"): SparcBenchmarkConfig {
  const problems = checkAgainst(SPARC_CONFIG_SCHEMA, value).map((p) => nameTestCase(p, value));
  if (problems.length === 0) {
    const seen = new Map<string, number>();
    (value as SparcBenchmarkConfig).testCases.forEach((tc, i) => {
      const first = seen.get(tc.id);
      if (first !== undefined)
        problems.push(`testCases[${i}] (id "${tc.id}"): key "id": duplicates testCases[${first}]`);
      else seen.set(tc.id, i);
    });
  }
  if (problems.length > 0) throw new ValidationError(source, problems);
  return value as SparcBenchmarkConfig;
}

/**
 * Resolve `file:<path>` inputs (the plan's SWE-bench runner executed such a
 * file) into program text, relative to `baseDir`. Returns a new config.
 */
export async function resolveFileInputs(config: SparcBenchmarkConfig, baseDir: string): Promise<SparcBenchmarkConfig> {
  const testCases = await Promise.all(
    config.testCases.map(async (tc) => {
      if (!tc.input.startsWith("file:")) return tc;
      const rel = tc.input.slice("file:".length);
      const path = isAbsolute(rel) ? rel : resolve(baseDir, rel);
      try {
        return { ...tc, input: await readFile(path, "utf8") };
      } catch (err) {
        throw new InputFileError(path, `test case "${tc.id}": cannot read its input file`, { cause: err });
      }
    }),
  );
  return { ...config, testCases };
}

/** Read, parse, validate a config file and resolve its `file:` inputs. */
export async function loadSparcConfig(path: string): Promise<SparcBenchmarkConfig> {
  let text: string;
  try {
    text = await readFile(path, "utf8");
  } catch (err) {
    throw new InputFileError(path, "cannot read the SPARC config file", { cause: err });
  }
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (err) {
    throw new InputFileError(path, `not valid JSON: ${(err as Error).message}`, { cause: err });
  }
  return resolveFileInputs(parseSparcConfig(value, path), dirname(resolve(path)));
}
