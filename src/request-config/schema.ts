/**
 * The request config's schema, `schemas/assessment_request.schema.json`, read
 * once: its file name and the properties the CLI, the docs and the resolver
 * are generated from.
 */
import { readSchema } from "../util/schema.js";

/** File of the request config's schema under `schemas/`. */
export const CONFIG_SCHEMA_FILE = "assessment_request.schema.json";

/** What this code reads of one property of the schema. */
export interface ConfigPropertySchema {
  type?: string;
  enum?: unknown[];
  description?: string;
  default?: unknown;
  items?: { type?: string };
}

let schema: Record<string, unknown> | undefined;

/** The schema document (read on first use). */
export function configSchema(): Record<string, unknown> {
  return (schema ??= readSchema(CONFIG_SCHEMA_FILE));
}

/** The schema's properties, keyed by snake_case config key. */
export function configProperties(): Record<string, ConfigPropertySchema> {
  return configSchema()["properties"] as Record<string, ConfigPropertySchema>;
}

/** The schema's default of `key` (for a command whose own flag stands for that key, e.g. preflight's `--dataset`). */
export function schemaDefault<T>(key: string): T {
  const value = configProperties()[key]?.default;
  if (value === undefined) throw new Error(`schemas/${CONFIG_SCHEMA_FILE}: "${key}" has no default`);
  return value as T;
}

/** A key whose default depends on the benchmark: its value per named benchmark, and for every other one. */
export interface BenchmarkDependentDefault {
  byBenchmark: Record<string, unknown>;
  otherwise: unknown;
}

/** The benchmark an `allOf` entry's `if` names when it names nothing else (`{benchmark: {const}}`), or null. */
function benchmarkOfCondition(cond: unknown): string | null {
  if (typeof cond !== "object" || cond === null) return null;
  const props = (cond as { properties?: Record<string, unknown> }).properties ?? {};
  const keys = Object.keys(props);
  const name = (props["benchmark"] as { const?: unknown } | undefined)?.const;
  return keys.length === 1 && typeof name === "string" ? name : null;
}

type Branch = { properties?: Record<string, { default?: unknown }> } | undefined;
const branchDefaults = (branch: Branch): Array<[string, unknown]> =>
  Object.entries(branch?.properties ?? {})
    .filter(([, p]) => p.default !== undefined)
    .map(([key, p]) => [key, p.default]);

/**
 * The defaults the schema sets per benchmark: `allOf` entries `if benchmark = <name> then … else …`
 * (each benchmark's descriptor `defaults`; conditions on more than the benchmark, like `interaction`'s,
 * are described in the key's text instead). Keyed by config key.
 */
export function benchmarkDependentDefaults(
  schemaDoc: Record<string, unknown> = configSchema(),
): Record<string, BenchmarkDependentDefault> {
  const out: Record<string, BenchmarkDependentDefault> = {};
  for (const entry of (schemaDoc["allOf"] ?? []) as Array<{ if?: unknown; then?: Branch; else?: Branch }>) {
    const name = benchmarkOfCondition(entry.if);
    if (name === null) continue;
    for (const [key, value] of branchDefaults(entry.then))
      (out[key] ??= { byBenchmark: {}, otherwise: undefined }).byBenchmark[name] = value;
    for (const [key, value] of branchDefaults(entry.else))
      (out[key] ??= { byBenchmark: {}, otherwise: undefined }).otherwise = value;
  }
  return out;
}

/** A key's default as text: the schema's own, or per benchmark ("swebench 1800, else 3"); null when none. */
export function defaultText(key: string, schemaDoc: Record<string, unknown> = configSchema()): string | null {
  const own = ((schemaDoc["properties"] ?? {}) as Record<string, ConfigPropertySchema>)[key]?.default;
  if (own !== undefined) return JSON.stringify(own);
  const dependent = benchmarkDependentDefaults(schemaDoc)[key];
  if (dependent === undefined) return null;
  const cases = Object.entries(dependent.byBenchmark).map(([name, value]) => `${name} ${JSON.stringify(value)}`);
  if (dependent.otherwise !== undefined) cases.push(`else ${JSON.stringify(dependent.otherwise)}`);
  return cases.join(", ");
}
