/**
 * The runner CLI's boundary: `a2a-bench run` arguments and config file →
 * RunOptions (runner/options.ts), checked once. The parseArgs table is generated from
 * `schemas/assessment_request.schema.json` (snake_case key → `--kebab-case`
 * flag), arrays are comma lists (`--k 1,10`), flag strings are converted to
 * the schema's types here, and the merged config (flags over the file) goes
 * once through the request config's resolver (request-config/resolve.ts).
 * The config file the green agent writes is already resolved: checking it
 * again changes nothing.
 */
import { readFile } from "node:fs/promises";
import type { ParseArgsConfig } from "node:util";
import type { ErrorObject } from "ajv/dist/2020.js";
import { formatAjvErrors } from "../util/schema.js";
import { LOG_LEVELS, LOG_LEVEL_OPTION, parseLogLevel, type LogLevel } from "../util/log-level.js";
import { configKeyNames } from "../request-config/config-keys.js";
import { UsageError } from "../util/errors.js";
import { parseUsage } from "../util/parse-usage.js";
import { resolveConfig } from "../request-config/resolve.js";
import { configProperties, defaultText } from "../request-config/schema.js";
import { participantConflicts } from "../request-config/participant-rules.js";
import { interactionProblems, type OfferedInteractions } from "../request-config/interaction-rules.js";
import { defaultRunOut, type RunOptions } from "./options.js";

/** snake_case → kebab-case. */
export function flagName(key: string): string {
  return key.replace(/_/g, "-");
}

/** The schema keys that are CLI flags (all but `benchmark`, which is the positional argument). */
export const CONFIG_KEYS: readonly string[] = Object.keys(configProperties()).filter((k) => k !== "benchmark");

/** The parseArgs option table: every schema key plus --config-file, --out. */
export function optionTable(): NonNullable<ParseArgsConfig["options"]> {
  const properties = configProperties();
  const table: NonNullable<ParseArgsConfig["options"]> = {
    "config-file": { type: "string" },
    out: { type: "string" },
    // sparc: the SPARC 2.0 plan's CLI name for its BenchmarkConfig file; an alias of --sparc-config.
    config: { type: "string" },
    // CLI-only switches (not config keys): see ParsedRunArgs.
    force: { type: "boolean" },
    json: { type: "boolean" },
    events: { type: "boolean" },
    // Not a config key: a request must not be able to lower it. The green agent passes it.
    "require-full-isolation": { type: "boolean" },
    ...LOG_LEVEL_OPTION,
  };
  for (const key of CONFIG_KEYS) {
    table[flagName(key)] = { type: properties[key]?.type === "boolean" ? "boolean" : "string" };
  }
  return table;
}

/** Usage text generated from the schema's descriptions. */
export function usageText(): string {
  const properties = configProperties();
  const lines = [
    "Usage: a2a-bench run <benchmark> [options]",
    "",
    "Options (each is a key of schemas/assessment_request.schema.json in kebab-case; arrays as comma lists):",
    "  --config-file FILE   JSON object of snake_case config keys (flags override it)",
    "  --out DIR            output directory (default results/<benchmark>/<run_id>)",
    "  --config FILE        sparc: the SPARC 2.0 BenchmarkConfig file (alias of --sparc-config)",
    "  --force              overwrite the finished run already in the output directory (else: --resume it)",
    "  --json               print only the results summary as one JSON object on stdout (no progress, no events)",
    "  --events             print the runner protocol on stdout: one `A2A_EVENT:{json}` line per event (the green",
    "                       agent reads it; logs go to stderr). Without it, a pipe gets readable progress lines",
    "  --version            print the version",
    "  --log-level L        " + LOG_LEVELS.join("|") + " (default: env LOG_LEVEL, else info)",
    "  --require-full-isolation  end the run with status error (exit 3) unless the sandbox isolates fully (bwrap/e2b/docker);",
    "                       the green agent sets it for A2A requests",
  ];
  for (const key of CONFIG_KEYS) {
    const p = properties[key] ?? {};
    const value = p.type === "boolean" ? "" : p.enum ? ` ${p.enum.join("|")}` : p.type === "array" ? " A,B" : " V";
    const text = defaultText(key);
    const def = text !== null ? ` (default ${text})` : "";
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
  /** `--events`: the runner protocol's `A2A_EVENT:` lines on stdout, whatever stdout is. */
  events?: boolean;
  /** `--require-full-isolation` (default false). */
  requireFullIsolation?: boolean;
  /** `--log-level`; undefined → env LOG_LEVEL, else info. */
  logLevel?: LogLevel | undefined;
}

/** Pure parse of `run` arguments. Throws UsageError. */
export function parseRunArgs(argv: string[]): ParsedRunArgs {
  const parsed = parseUsage({ args: argv, options: optionTable(), allowPositionals: true });
  const [benchmark, ...extra] = parsed.positionals;
  if (benchmark === undefined) throw new UsageError("missing <benchmark> (e.g. `a2a-bench run humaneval`)");
  if (extra.length > 0) throw new UsageError(`unexpected argument(s): ${extra.join(" ")}`);
  const values = parsed.values as Record<string, string | boolean | undefined>;
  const properties = configProperties();
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
  if (values["json"] === true && values["events"] === true)
    throw new UsageError("--json and --events both choose what stdout carries; give one");
  return {
    benchmark,
    configFile: typeof values["config-file"] === "string" ? values["config-file"] : undefined,
    out: typeof values["out"] === "string" ? values["out"] : undefined,
    flags,
    force: values["force"] === true,
    json: values["json"] === true,
    events: values["events"] === true,
    requireFullIsolation: values["require-full-isolation"] === true,
    logLevel: parseLogLevel(values["log-level"] as string | undefined),
  };
}

/**
 * Read a config file: a JSON object of snake_case keys. Its values are checked
 * with the flags, once, by {@link resolveRunArgs}.
 */
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
  return value as Record<string, unknown>;
}

/**
 * A flag's string as the schema's type: numbers and integers as numbers,
 * `true`/`false` as booleans, array items by the items' type. A string that is
 * not one stays a string, so the schema check names the flag and the type.
 */
function typedFlag(type: string | undefined, value: unknown): unknown {
  if (Array.isArray(value)) return value;
  if (typeof value !== "string") return value;
  if ((type === "number" || type === "integer") && value.trim() !== "" && !Number.isNaN(Number(value))) {
    return Number(value);
  }
  if (type === "boolean" && (value === "true" || value === "false")) return value === "true";
  return value;
}

function typedFlags(flags: Record<string, unknown>): Record<string, unknown> {
  const properties = configProperties();
  const out: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(flags)) {
    const p = properties[key];
    out[key] = Array.isArray(value) ? value.map((item) => typedFlag(p?.items?.type, item)) : typedFlag(p?.type, value);
  }
  return out;
}

/**
 * Merge file and flags (flags win), check and resolve them once (defaults, run
 * id, concurrency, participant_concurrency; see request-config/resolve.ts) and
 * add the output directory. Every problem is listed in one UsageError: the
 * file's worded as before (`--config-file F: /seed: ...`), the flags' by flag.
 * The config file the green agent writes is resolved already: its run id is
 * the run's (the green agent passes no other).
 */
export function resolveRunArgs(
  offered: OfferedInteractions,
  args: ParsedRunArgs,
  fileConfig: Record<string, unknown> = {},
  cwd = process.cwd(),
): RunOptions {
  if (fileConfig["benchmark"] !== undefined && fileConfig["benchmark"] !== args.benchmark) {
    throw new UsageError(
      `the config file says benchmark ${JSON.stringify(fileConfig["benchmark"])} but the command line says "${args.benchmark}"`,
    );
  }
  const flags = typedFlags(args.flags);
  const merged: Record<string, unknown> = { ...fileConfig, ...flags, benchmark: args.benchmark };
  const resolved = resolveConfig(merged);
  if (!resolved.ok) throw new UsageError(describeProblems(resolved.errors, merged, args));
  const config = resolved.config;
  const conflicts = [
    ...participantConflicts(config, config.agent !== undefined, {
      participant: "--agent",
      key: (key) => `--${flagName(key)}`,
    }),
    ...interactionProblems(offered, config, `--${flagName("interaction")}`),
  ];
  if (conflicts.length > 0) throw new UsageError(conflicts.join("; "));
  return { ...config, out: args.out ?? defaultRunOut(config, cwd) };
}

/** The config key an error is about (a top-level key, or the unknown key named). */
function errorKey(e: ErrorObject): string | undefined {
  if (e.keyword === "additionalProperties" && e.instancePath === "") {
    return String((e.params as { additionalProperty: string }).additionalProperty);
  }
  return /^\/([a-z_]+)/.exec(e.instancePath)?.[1];
}

/** One message for every problem: the config file's together, then the flags'. */
function describeProblems(errors: ErrorObject[], merged: Record<string, unknown>, args: ParsedRunArgs): string {
  const fromFile: string[] = [];
  const fromFlags: string[] = [];
  for (const e of errors) {
    const key = errorKey(e);
    if (args.configFile !== undefined && (key === undefined || !(key in args.flags))) {
      fromFile.push(formatAjvErrors([e], "", (path) => (path === "/" ? configKeyNames() : undefined))[0]!);
    } else fromFlags.push(flagProblem(e, merged) ?? toFlagWording(formatAjvErrors([e])[0]!));
  }
  const parts: string[] = [];
  if (fromFile.length > 0) parts.push(`--config-file ${args.configFile}: ${fromFile.join("; ")}`);
  if (fromFlags.length > 0) parts.push(`invalid options: ${fromFlags.join("; ")}`);
  return parts.join("; ");
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
  const kind = configProperties()[key]?.type === "integer" ? "integer" : "number";
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
