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
