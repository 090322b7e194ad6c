import { readFileSync } from "node:fs";
import { join } from "node:path";
import { Ajv2020, type ErrorObject, type Options, type ValidateFunction } from "ajv/dist/2020.js";
import addFormatsModule from "ajv-formats";
import { schemasDir } from "./package-root.js";
import { ValidationError } from "./errors.js";

// ajv-formats is CJS; under NodeNext its default export is the module object.
const addFormats = (addFormatsModule as unknown as { default?: typeof addFormatsModule }).default ?? addFormatsModule;

/**
 * A new Ajv (JSON Schema 2020-12, formats, every error, strict) for our
 * schemas; `extra` adds or overrides options (e.g. defaults and coercion).
 * validateSchema: false — checking our own schemas against the 2020-12
 * meta-schema cost ~40 ms (compiling the meta-schema) on the first compile of
 * every process; tests/util/schema.test.ts checks every file in schemas/
 * against it once instead (schemaProblems below).
 */
export function createAjv(extra: Options = {}): Ajv2020 {
  const instance = new Ajv2020({
    allErrors: true,
    strict: true,
    allowUnionTypes: true,
    validateSchema: false,
    ...extra,
  });
  (addFormats as unknown as (a: Ajv2020) => void)(instance);
  return instance;
}

/** Made on first use: building it (formats, the 2020-12 meta-schemas) is start-up time a server that never validates would pay. */
let ajv: Ajv2020 | undefined;
const compiled = new Map<string, ValidateFunction>();

/** Load (once) and compile a schema from `schemas/<file>`. */
export function getValidator(file: string): ValidateFunction {
  let v = compiled.get(file);
  if (!v) {
    const schema = JSON.parse(readFileSync(join(schemasDir, file), "utf8")) as Record<string, unknown>;
    v = (ajv ??= createAjv()).compile(schema);
    compiled.set(file, v);
  }
  return v;
}

/** Read a schema's JSON (for docs generation, defaults). */
export function readSchema(file: string): Record<string, unknown> {
  return JSON.parse(readFileSync(join(schemasDir, file), "utf8")) as Record<string, unknown>;
}

/** One human-readable line per Ajv error, each naming the JSON path. */
export function formatAjvErrors(errors: ErrorObject[] | null | undefined, root = ""): string[] {
  if (!errors) return [];
  return errors.map((e) => {
    const path = `${root}${e.instancePath}` || "/";
    switch (e.keyword) {
      case "additionalProperties":
        return `${path}: unknown key "${String((e.params as { additionalProperty: string }).additionalProperty)}"`;
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
 * empty when valid. The shared registry skips this
 * check for speed, so the test suite runs it over every schema.
 */
export function schemaProblems(file: string, schema: Record<string, unknown> = readSchema(file)): string[] {
  const checker = createAjv();
  const valid = checker.validateSchema(schema);
  if (valid instanceof Promise) throw new Error("unexpected async meta-schema");
  return valid ? [] : formatAjvErrors(checker.errors, file);
}
