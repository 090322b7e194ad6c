/**
 * Schema validators, by file of `schemas/` (the single source of truth).
 * Validators come from the modules `npm run build` generates with Ajv's
 * standalone code (src/util/validator-generate.ts, into dist/validators/), so
 * a run neither imports Ajv's compiler nor compiles a schema at start. A
 * generated module is used only when its fingerprint matches the schema's
 * text and options now (validator-spec.ts): without a build, or with a schema
 * edited since, the validators are compiled with Ajv instead — the same code,
 * the same errors, never a stale check.
 */
import { readFileSync } from "node:fs";
import { createRequire } from "node:module";
import { join } from "node:path";
import type { Ajv2020, ErrorObject, Options, ValidateFunction } from "ajv/dist/2020.js";
import { packageRoot, schemasDir } from "./package-root.js";
import { ValidationError } from "./errors.js";
import { ajvForSpec, createAjv as createAjvInstance } from "./ajv-compiler.js";
import { didYouMean } from "./suggest.js";
import {
  FINGERPRINT_EXPORT,
  WHOLE_SCHEMA,
  specFingerprint,
  specModuleName,
  type ValidatorSpec,
} from "./validator-spec.js";

export { WHOLE_SCHEMA, type ValidatorSpec };

const nodeRequire = createRequire(import.meta.url);

/** Where `npm run build` writes the generated validator modules. */
export const generatedValidatorsDir = join(packageRoot, "dist", "validators");

/** A new Ajv for our schemas (see ajv-compiler.ts); `extra` adds or overrides options. */
export function createAjv(extra: Options = {}): Ajv2020 {
  return createAjvInstance(extra);
}

/** How a spec's validators were had: from the generated module, or compiled in this process. */
export type ValidatorSource = "generated" | "compiled";

const loaded = new Map<string, { validators: Record<string, ValidateFunction>; source: ValidatorSource }>();

/** The generated validators of `spec`, or null when none match `schemaText` (absent, stale, unreadable). */
function generatedValidators(
  spec: ValidatorSpec,
  schemaText: string,
  dir: string,
): Record<string, ValidateFunction> | null {
  let mod: Record<string, unknown>;
  try {
    mod = nodeRequire(join(dir, `${specModuleName(spec)}.cjs`)) as Record<string, unknown>;
  } catch {
    return null;
  }
  if (mod[FINGERPRINT_EXPORT] !== specFingerprint(spec, schemaText)) return null;
  const validators: Record<string, ValidateFunction> = {};
  for (const [name, value] of Object.entries(mod)) {
    if (name !== FINGERPRINT_EXPORT && typeof value === "function") validators[name] = value as ValidateFunction;
  }
  return validators;
}

/** The validators of `spec`, compiled with Ajv now. */
function compiledValidators(spec: ValidatorSpec, schemaText: string): Record<string, ValidateFunction> {
  const { ajv, refs } = ajvForSpec(spec, JSON.parse(schemaText) as Record<string, unknown>);
  const validators: Record<string, ValidateFunction> = {};
  for (const [name, ref] of Object.entries(refs)) {
    const v = ajv.getSchema(ref);
    if (!v) throw new Error(`schemas/${spec.file}: no schema at ${ref}`);
    validators[name] = v as ValidateFunction;
  }
  return validators;
}

/**
 * The validators of `spec` (once per process): by name (`$defs` entries with
 * `defs`), else one under {@link WHOLE_SCHEMA}. `dir` is where generated
 * modules are looked for (tests give their own).
 */
export function loadValidators(
  spec: ValidatorSpec,
  dir: string = generatedValidatorsDir,
): { validators: Record<string, ValidateFunction>; source: ValidatorSource } {
  const key = `${dir}\0${specModuleName(spec)}`;
  let entry = loaded.get(key);
  if (!entry) {
    const text = readFileSync(join(schemasDir, spec.file), "utf8");
    const generated = generatedValidators(spec, text, dir);
    entry = generated
      ? { validators: generated, source: "generated" }
      : { validators: compiledValidators(spec, text), source: "compiled" };
    loaded.set(key, entry);
  }
  return entry;
}

/** The validator of `schemas/<file>` (loaded once; see the module note). */
export function getValidator(file: string): ValidateFunction {
  const v = loadValidators({ file }).validators[WHOLE_SCHEMA];
  if (!v) throw new Error(`schemas/${file}: no validator`);
  return v;
}

/** Read a schema's JSON (for docs generation, defaults). */
export function readSchema(file: string): Record<string, unknown> {
  return JSON.parse(readFileSync(join(schemasDir, file), "utf8")) as Record<string, unknown>;
}

/**
 * One human-readable line per Ajv error, each naming the JSON path. `keysAt(path)`, when given, lists the
 * keys an object at `path` may have: an unknown key then gets a did-you-mean (`unknown key "sampels" (did
 * you mean "samples"?)`).
 */
export function formatAjvErrors(
  errors: ErrorObject[] | null | undefined,
  root = "",
  keysAt?: (path: string) => readonly string[] | undefined,
): string[] {
  if (!errors) return [];
  return errors.map((e) => {
    const path = `${root}${e.instancePath}` || "/";
    switch (e.keyword) {
      case "additionalProperties": {
        const key = String((e.params as { additionalProperty: string }).additionalProperty);
        const known = keysAt?.(path);
        return `${path}: unknown key "${key}"${known ? didYouMean(key, known) : ""}`;
      }
      case "required":
        return `${path}: missing required key "${String((e.params as { missingProperty: string }).missingProperty)}"`;
      case "enum":
        return `${path}: must be one of ${JSON.stringify((e.params as { allowedValues: unknown[] }).allowedValues)}`;
      default:
        return `${path}: ${e.message ?? e.keyword}`;
    }
  });
}

/** Validate `value` against `schemas/<file>`; returns the list of problems (empty = valid). */
export function checkAgainst(file: string, value: unknown, root = ""): string[] {
  const v = getValidator(file);
  return v(value) ? [] : formatAjvErrors(v.errors, root);
}

/** Validate or throw a {@link ValidationError} listing every problem. */
export function assertValid<T>(file: string, value: unknown, what: string): T {
  const problems = checkAgainst(file, value);
  if (problems.length > 0) throw new ValidationError(what, problems);
  return value as T;
}

/**
 * Problems of `schemas/<file>` (or of `schema`, reported under the name `file`) as a
 * JSON Schema 2020-12 document (its meta-schema, checked by a fresh Ajv instance),
 * empty when valid. Validators skip this check for speed, so the test suite
 * runs it over every schema.
 */
export function schemaProblems(file: string, schema: Record<string, unknown> = readSchema(file)): string[] {
  const checker = createAjv();
  const valid = checker.validateSchema(schema);
  if (valid instanceof Promise) throw new Error("unexpected async meta-schema");
  return valid ? [] : formatAjvErrors(checker.errors, file);
}
