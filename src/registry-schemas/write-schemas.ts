/**
 * Build step: write the registry-owned parts (registry-parts.ts) into schemas/. Each part is edited in place
 * (jsonc-parser's minimal edits, then Prettier as `npm run format` would), so the rest of a schema keeps its
 * text; a part already equal is left alone, and a schema already current is not written at all.
 */
import { readFileSync, renameSync, writeFileSync } from "node:fs";
import { isDeepStrictEqual } from "node:util";
import { join } from "node:path";
import { applyEdits, modify } from "jsonc-parser";
import { benchmarkDescriptors } from "../benchmarks/index.js";
import { sandboxBackends } from "../sandbox/registry.js";
import { schemasDir } from "../util/package-root.js";
import { loadBenchmarkSchemas, registrySchemaParts, RESULTS_SCHEMA, type SchemaPart } from "./registry-parts.js";

type Json = Record<string, unknown>;

function valueAt(doc: unknown, path: readonly (string | number)[]): unknown {
  let v = doc;
  for (const key of path) {
    if (typeof v !== "object" || v === null || !Object.hasOwn(v, key)) return undefined;
    v = (v as Json)[key as string];
  }
  return v;
}

/** The parts of `parts` that `text` (a schema's JSON) does not hold yet. */
export function staleParts(text: string, parts: readonly SchemaPart[]): SchemaPart[] {
  const doc: unknown = JSON.parse(text);
  return parts.filter((p) => !isDeepStrictEqual(valueAt(doc, p.path), p.value));
}

/** `text` with `parts` written in, unformatted (the caller formats). */
export function applyParts(text: string, parts: readonly SchemaPart[]): string {
  let out = text;
  for (const part of staleParts(text, parts))
    out = applyEdits(
      out,
      modify(out, [...part.path], part.value, { formattingOptions: { insertSpaces: true, tabSize: 2, eol: "\n" } }),
    );
  return out;
}

/** The registry-owned parts of the schemas, from the registries as they are in this process. */
export async function currentRegistryParts(dir: string = schemasDir): Promise<SchemaPart[]> {
  const results = JSON.parse(readFileSync(join(dir, RESULTS_SCHEMA), "utf8")) as Json;
  return registrySchemaParts(await loadBenchmarkSchemas(benchmarkDescriptors()), sandboxBackends(), results);
}

/**
 * Write the registry-owned parts into the schemas of `dir`; `format` is Prettier for the file's text.
 * Returns the files changed.
 */
export async function writeRegistrySchemas(
  format: (text: string, file: string) => Promise<string>,
  dir: string = schemasDir,
): Promise<string[]> {
  const parts = await currentRegistryParts(dir);
  const changed: string[] = [];
  for (const file of [...new Set(parts.map((p) => p.file))]) {
    const path = join(dir, file);
    const text = readFileSync(path, "utf8");
    const own = parts.filter((p) => p.file === file);
    if (staleParts(text, own).length === 0) continue;
    const tmp = `${path}.${process.pid}.tmp`;
    writeFileSync(tmp, await format(applyParts(text, own), path));
    renameSync(tmp, path);
    changed.push(file);
  }
  return changed;
}
