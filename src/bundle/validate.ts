/**
 * Validate evaluation bundles against our schema and smi_bench's looser v1
 * schema. Both schemas share the `$id` `smi-bench:evaluation_bundle:v1` (that
 * is the compatibility contract); every schema file's validator is made in
 * its own Ajv instance (util/schema.ts), so they do not clash.
 */
import { formatAjvErrors, getValidator } from "../util/schema.js";

/** Our schema file (strict). */
export const BUNDLE_SCHEMA_FILE = "evaluation_bundle.schema.json";
/** smi_bench's v1 schema file (loose). */
export const SMI_BUNDLE_SCHEMA_FILE = "smi_evaluation_bundle.schema.json";
/** The `spec_url` every v1 bundle carries. */
export const BUNDLE_SPEC_URL = "smi-bench:evaluation_bundle:v1";

/** Problems of `bundle` against one schema file (empty = valid), each naming its JSON path. */
export function bundleProblems(bundle: unknown, file: string = BUNDLE_SCHEMA_FILE): string[] {
  const v = getValidator(file);
  return v(bundle) ? [] : formatAjvErrors(v.errors);
}

/**
 * Problems of `bundle` against both schemas (ours, then smi_bench's), each line
 * prefixed with the schema it violates. Empty = valid under both.
 */
export function validateBundle(bundle: unknown): string[] {
  return [
    ...bundleProblems(bundle, BUNDLE_SCHEMA_FILE).map((p) => `evaluation_bundle ${p}`),
    ...bundleProblems(bundle, SMI_BUNDLE_SCHEMA_FILE).map((p) => `smi evaluation_bundle ${p}`),
  ];
}
