/**
 * Runner options from the command line and/or a config file, validated once
 * against `schemas/assessment_request.schema.json` — the one source of truth:
 * the parseArgs table is generated from the schema's properties (snake_case
 * key → `--kebab-case` flag), arrays are comma lists (`--k 1,10`), and Ajv
 * applies defaults and coerces the CLI's strings.
 */
import { readFile } from "node:fs/promises";
import { availableParallelism } from "node:os";
import { join } from "node:path";
import { randomBytes } from "node:crypto";
import type { ParseArgsConfig } from "node:util";
import type { ErrorObject, ValidateFunction } from "ajv/dist/2020.js";
import { createAjv, formatAjvErrors, readSchema } from "../util/schema.js";
import { UsageError } from "../util/errors.js";
import type { AssessmentConfig, RunOptions } from "./options.js";
import { parseUsage } from "../util/parse-usage.js";
import { PARTICIPANT_LANES_PER_SLOT } from "./lanes.js";

const SCHEMA_FILE = "assessment_request.schema.json";

interface PropertySchema {
  type?: string;
  enum?: unknown[];
  description?: string;
  default?: unknown;
}

const schema = readSchema(SCHEMA_FILE);
const properties = schema["properties"] as Record<string, PropertySchema>;

// Own Ajv instances: this one mutates its input (defaults, coercion), the shared registry must not.
// Compiled on first use, not at import (no meta-schema pass: see createAjv).
function compileConfigValidator(options: { coerce: boolean }, value: Record<string, unknown>): ValidateFunction {
  return createAjv(options.coerce ? { useDefaults: true, coerceTypes: true } : {}).compile(value);
}
let configValidator: ValidateFunction | undefined;
const validatorOfConfig = (): ValidateFunction =>
  (configValidator ??= compileConfigValidator({ coerce: true }, schema));
// The config file is checked as written (no coercion): a JSON file has real types.
let fileValidator: ValidateFunction | undefined;
const validatorOfFile = (): ValidateFunction =>
  (fileValidator ??= compileConfigValidator({ coerce: false }, { ...schema, required: [] }));

/** snake_case → kebab-case. */
export function flagName(key: string): string {
  return key.replace(/_/g, "-");
}

/** The schema keys that are CLI flags (all but `benchmark`, which is the positional argument). */
export const CONFIG_KEYS: readonly string[] = Object.keys(properties).filter((k) => k !== "benchmark");

/** The parseArgs option table: every schema key plus --config-file, --out. */
export function optionTable(): NonNullable<ParseArgsConfig["options"]> {
  const table: NonNullable<ParseArgsConfig["options"]> = {
    "config-file": { type: "string" },
    out: { type: "string" },
    // sparc: the SPARC 2.0 plan's CLI name for its BenchmarkConfig file; an alias of --sparc-config.
    config: { type: "string" },
    // CLI-only switches (not config keys): see ParsedRunArgs.
    force: { type: "boolean" },
    json: { type: "boolean" },
    // Not a config key: a request must not be able to lower it. The green agent passes it.
    "require-full-isolation": { type: "boolean" },
  };
  for (const key of CONFIG_KEYS) {
    table[flagName(key)] = { type: properties[key]?.type === "boolean" ? "boolean" : "string" };
  }
  return table;
}

/** Usage text generated from the schema's descriptions. */
export function usageText(): string {
  const lines = [
    "Usage: a2a-bench run <benchmark> [options]",
    "",
    "Options (each is a key of schemas/assessment_request.schema.json in kebab-case; arrays as comma lists):",
    "  --config-file FILE   JSON object of snake_case config keys (flags override it)",
    "  --out DIR            output directory (default results/<benchmark>/<run_id>)",
    "  --config FILE        sparc: the SPARC 2.0 BenchmarkConfig file (alias of --sparc-config)",
    "  --force              overwrite the finished run already in the output directory (else: --resume it)",
    "  --json               print only the results summary as one JSON object on stdout (no progress, no events)",
    "  --version            print the version",
    "  --require-full-isolation  end the run with status error (exit 3) unless the sandbox isolates fully (bwrap/e2b/docker);",
    "                       the green agent sets it for A2A requests",
  ];
  for (const key of CONFIG_KEYS) {
    const p = properties[key] ?? {};
    const value = p.type === "boolean" ? "" : p.enum ? ` ${p.enum.join("|")}` : p.type === "array" ? " A,B" : " V";
    const def = p.default !== undefined ? ` (default ${JSON.stringify(p.default)})` : "";
    lines.push(`  --${flagName(key)}${value}`.padEnd(36) + ` ${p.description ?? ""}${def}`);
  }
  return lines.join("\n") + "\n";
}

/** What the command line says, before the config file is read. */
export interface ParsedRunArgs {
  benchmark: string;
  configFile: string | undefined;
  out: string | undefined;
  /** Flag values keyed by schema key (strings, booleans, string arrays for array keys). */
  flags: Record<string, unknown>;
  /** Overwrite a run already present in the output directory. */
  force?: boolean;
  /** Only the machine-readable summary on stdout. */
  json?: boolean;
  /** `--require-full-isolation` (default false). */
  requireFullIsolation?: boolean;
}

/** Pure parse of `run` arguments. Throws UsageError. */
export function parseRunArgs(argv: string[]): ParsedRunArgs {
  const parsed = parseUsage({ args: argv, options: optionTable(), allowPositionals: true });
  const [benchmark, ...extra] = parsed.positionals;
  if (benchmark === undefined) throw new UsageError("missing <benchmark> (e.g. `a2a-bench run humaneval`)");
  if (extra.length > 0) throw new UsageError(`unexpected argument(s): ${extra.join(" ")}`);
  const values = parsed.values as Record<string, string | boolean | undefined>;
  const flags: Record<string, unknown> = {};
  for (const key of CONFIG_KEYS) {
    const v = values[flagName(key)];
    if (v === undefined) continue;
    flags[key] =
      properties[key]?.type === "array" && typeof v === "string"
        ? v
            .split(",")
            .map((s) => s.trim())
            .filter((s) => s !== "")
        : v;
  }
  if (typeof values["config"] === "string") {
    if (flags["sparc_config"] !== undefined && flags["sparc_config"] !== values["config"]) {
      throw new UsageError("--config and --sparc-config name different files; give one");
    }
    flags["sparc_config"] = values["config"];
  }
  return {
    benchmark,
    configFile: typeof values["config-file"] === "string" ? values["config-file"] : undefined,
    out: typeof values["out"] === "string" ? values["out"] : undefined,
    flags,
    force: values["force"] === true,
    json: values["json"] === true,
    requireFullIsolation: values["require-full-isolation"] === true,
  };
}

/** Read a config file: a JSON object of snake_case keys, checked against the schema as written. */
export async function readConfigFile(path: string): Promise<Record<string, unknown>> {
  let text: string;
  try {
    text = await readFile(path, "utf8");
  } catch (err) {
    throw new UsageError(`--config-file ${path}: cannot read (${(err as Error).message})`);
  }
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (err) {
    throw new UsageError(`--config-file ${path}: not JSON (${(err as Error).message})`);
  }
  if (typeof value !== "object" || value === null || Array.isArray(value)) {
    throw new UsageError(`--config-file ${path}: must be a JSON object`);
  }
  const validateFile = validatorOfFile();
  if (!validateFile(value)) {
    throw new UsageError(`--config-file ${path}: ${formatAjvErrors(validateFile.errors).join("; ")}`);
  }
  return value as Record<string, unknown>;
}

/** A fresh run id: `<benchmark>-<UTC yyyymmddThhmmss>-<4 hex>`. */
export function generateRunId(benchmark: string, now = new Date()): string {
  const stamp = now
    .toISOString()
    .replace(/[-:]/g, "")
    .replace(/\.\d+Z$/, "");
  return `${benchmark}-${stamp}-${randomBytes(2).toString("hex")}`;
}

/**
 * Merge file and flags (flags win), validate with defaults and coercion, and
 * resolve run id, out dir, concurrency, participant_concurrency. Every problem is listed in one UsageError.
 */
export function resolveRunOptions(
  args: ParsedRunArgs,
  fileConfig: Record<string, unknown> = {},
  cwd = process.cwd(),
): RunOptions {
  if (fileConfig["benchmark"] !== undefined && fileConfig["benchmark"] !== args.benchmark) {
    throw new UsageError(
      `the config file says benchmark ${JSON.stringify(fileConfig["benchmark"])} but the command line says "${args.benchmark}"`,
    );
  }
  const merged: Record<string, unknown> = { ...fileConfig, ...args.flags, benchmark: args.benchmark };
  const validateConfig = validatorOfConfig();
  if (!validateConfig(merged)) {
    const problems = (validateConfig.errors ?? []).map(
      (e) => flagProblem(e, merged) ?? toFlagWording(formatAjvErrors([e])[0]!),
    );
    throw new UsageError(`invalid options: ${problems.join("; ")}`);
  }
  const config = merged as unknown as AssessmentConfig;
  const runId = config.run_id ?? generateRunId(config.benchmark);
  const out = args.out ?? join(cwd, "results", config.benchmark, runId);
  const concurrency = config.concurrency ?? availableParallelism();
  const samples = config.samples ?? config.num_instances;
  return {
    ...config,
    ...(samples === undefined ? {} : { samples }),
    concurrency,
    participant_concurrency: config.participant_concurrency ?? PARTICIPANT_LANES_PER_SLOT * concurrency,
    run_id: runId,
    out,
  };
}

/**
 * A bound broken by a number, worded for the command line:
 * `--per-task-timeout-seconds must be a positive number, got -1`.
 */
function flagProblem(e: ErrorObject, merged: Record<string, unknown>): string | undefined {
  const key = /^\/([a-z_]+)$/.exec(e.instancePath)?.[1];
  if (key === undefined) return undefined;
  const limit = (e.params as { limit?: unknown }).limit;
  if (typeof limit !== "number") return undefined;
  const kind = properties[key]?.type === "integer" ? "integer" : "number";
  const got = JSON.stringify(merged[key]);
  const flag = `--${flagName(key)}`;
  switch (e.keyword) {
    case "exclusiveMinimum":
      return limit === 0
        ? `${flag} must be a positive ${kind}, got ${got}`
        : `${flag} must be a ${kind} above ${limit}, got ${got}`;
    case "minimum":
      return limit === 0
        ? `${flag} must be a non-negative ${kind}, got ${got}`
        : limit === 1 && kind === "integer"
          ? `${flag} must be a positive integer, got ${got}`
          : `${flag} must be a ${kind} of at least ${limit}, got ${got}`;
    case "maximum":
      return `${flag} must be at most ${limit}, got ${got}`;
    case "exclusiveMaximum":
      return `${flag} must be below ${limit}, got ${got}`;
    default:
      return undefined;
  }
}

// "/per_task_timeout_seconds: must be > 0" → "--per-task-timeout-seconds: must be > 0"
function toFlagWording(problem: string): string {
  return problem.replace(/^\/([a-z_]+)/, (_, key: string) => `--${flagName(key)}`);
}
