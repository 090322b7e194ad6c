/** The keys a request's `config` may have (the request schema's top-level properties), e.g. for did-you-mean. */
import { readSchema } from "../util/schema.js";

let keys: readonly string[] | undefined;

export function configKeyNames(): readonly string[] {
  keys ??= Object.keys(
    (readSchema("assessment_request.schema.json")["properties"] as Record<string, unknown> | undefined) ?? {},
  );
  return keys;
}
