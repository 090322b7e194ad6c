/**
 * Ajv itself, loaded only when a validator must be compiled in this process:
 * when no generated module (src/util/validator-generate.ts, run by
 * `npm run build`) matches the schema, for schemas given as values (docs,
 * tests), and for the meta-schema check. A run of the built CLI validates with
 * the generated modules and never loads Ajv's compiler (~140 ms of import and
 * compilation per process, measured on the runner).
 *
 * Loaded with require, not import: callers are synchronous, and a static
 * import would put Ajv back into the CLI bundle's start-up.
 */
import { createRequire } from "node:module";
import type { Ajv2020, Options } from "ajv/dist/2020.js";
import { BASE_AJV_OPTIONS, WHOLE_SCHEMA, type ValidatorSpec } from "./validator-spec.js";

const nodeRequire = createRequire(import.meta.url);
// Names in variables: the bundler leaves these requires to node (Ajv stays out of the bundle).
const AJV_2020 = "ajv/dist/2020";
const AJV_FORMATS = "ajv-formats";
const AJV_STANDALONE = "ajv/dist/standalone";

type AddFormats = (ajv: Ajv2020) => void;

/**
 * A new Ajv (JSON Schema 2020-12, formats, every error, strict: see
 * BASE_AJV_OPTIONS) for our schemas; `extra` adds or overrides options
 * (e.g. defaults, or `code.source` to generate standalone code).
 */
export function createAjv(extra: Options = {}): Ajv2020 {
  const { Ajv2020: AjvClass } = nodeRequire(AJV_2020) as typeof import("ajv/dist/2020.js");
  const formats = nodeRequire(AJV_FORMATS) as AddFormats | { default: AddFormats };
  const addFormats = typeof formats === "function" ? formats : formats.default;
  const instance = new AjvClass({ ...BASE_AJV_OPTIONS, ...extra });
  addFormats(instance);
  return instance;
}

/** Ajv's standalone code generator (`ajv/dist/standalone`). */
export function standaloneCode(ajv: Ajv2020, refs: Record<string, string>): string {
  const mod = nodeRequire(AJV_STANDALONE) as { default: (a: Ajv2020, r: Record<string, string>) => string };
  return mod.default(ajv, refs);
}

/** An Ajv holding `spec`'s schema (parsed: `schema`), and the ref of each of its validators by name. */
export function ajvForSpec(
  spec: ValidatorSpec,
  schema: Record<string, unknown>,
  extra: Options = {},
): { ajv: Ajv2020; refs: Record<string, string> } {
  const ajv = createAjv({ ...(spec.useDefaults ? { useDefaults: true } : {}), ...extra });
  ajv.addSchema(schema, spec.file);
  if (!spec.defs) return { ajv, refs: { [WHOLE_SCHEMA]: spec.file } };
  const id = typeof schema["$id"] === "string" ? schema["$id"] : spec.file;
  const names = Object.keys((schema["$defs"] as Record<string, unknown> | undefined) ?? {});
  return { ajv, refs: Object.fromEntries(names.map((n) => [n, `${id}#/$defs/${n}`])) };
}
