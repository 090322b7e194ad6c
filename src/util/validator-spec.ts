/**
 * What a set of schema validators is made from: one file of `schemas/`, the
 * options it is compiled with, and whether each `$defs` entry gets its own
 * validator. The same spec names the module generated at build time
 * (src/util/validator-generate.ts) and the validators loaded at run time
 * (src/util/schema.ts), and its fingerprint ties the two together: a
 * generated module is used only for the schema text and options it was
 * generated from.
 */
import { createHash } from "node:crypto";

export interface ValidatorSpec {
  /** File under `schemas/`. */
  file: string;
  /** Apply the schema's defaults in place (Ajv `useDefaults`). */
  useDefaults?: boolean;
  /** One validator per `$defs` entry, keyed by its name, instead of one for the whole schema. */
  defs?: boolean;
}

/** Key of a generated module's fingerprint export (no validator is named so: `#` starts no `$defs` name of ours). */
export const FINGERPRINT_EXPORT = "#fingerprint";

/** Name of the one validator of a spec without `defs`. */
export const WHOLE_SCHEMA = "validate";

/**
 * Ajv options of every validator (JSON Schema 2020-12, every error, strict).
 * validateSchema: false — checking our own schemas against the 2020-12
 * meta-schema cost ~40 ms on the first compile of every process;
 * tests/util/schema.test.ts checks every file in schemas/ against it once
 * instead (schemaProblems in schema.ts).
 */
export const BASE_AJV_OPTIONS = {
  allErrors: true,
  strict: true,
  allowUnionTypes: true,
  validateSchema: false,
} as const;

/** Base name (no extension) of the generated module of `spec`. */
export function specModuleName(spec: ValidatorSpec): string {
  return spec.file.replace(/\.json$/, "") + (spec.useDefaults ? ".defaults" : "") + (spec.defs ? ".defs" : "");
}

/**
 * Fingerprint of what a spec's validators depend on: the schema's text, the
 * Ajv options and the spec. A generated module carries the fingerprint it was
 * made from; a schema edited (or options changed) after the build no longer
 * matches, and the validators are compiled instead.
 */
export function specFingerprint(spec: ValidatorSpec, schemaText: string): string {
  return createHash("sha256")
    .update(
      JSON.stringify({
        options: BASE_AJV_OPTIONS,
        useDefaults: spec.useDefaults === true,
        defs: spec.defs === true,
      }),
    )
    .update("\n")
    .update(schemaText)
    .digest("hex");
}
