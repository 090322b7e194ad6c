/**
 * The parts of the schemas that name benchmarks and sandbox backends, computed from the registries: the
 * request's `benchmark`, `dataset` and `sandbox`, the results' `isolation` enums, each benchmark's row
 * `$defs` and the `allOf` entries that apply them. The build writes them into schemas/ (write-schemas.ts),
 * so a benchmark or backend is its folder and its registry line, and no list is kept by hand.
 */
import type { BenchmarkDescriptor, JsonSchemaObject } from "../benchmarks/descriptor.js";
import type { SandboxBackendDescriptor } from "../sandbox/backend.js";

/** A value at a JSON path of one schema file (undefined: the key is removed). */
export interface SchemaPart {
  readonly file: string;
  readonly path: readonly (string | number)[];
  readonly value: unknown;
}

/** A benchmark with its rows' `$defs` loaded (none for an external runner). */
export interface BenchmarkSchemaInput {
  readonly descriptor: BenchmarkDescriptor;
  readonly defs: Readonly<Record<string, JsonSchemaObject>>;
}

export const REQUEST_SCHEMA = "assessment_request.schema.json";
export const RESULTS_SCHEMA = "results.schema.json";

const code = (s: string): string => `\`${s}\``;

/** "a, b or c". */
function orList(items: readonly string[]): string {
  return items.length <= 1 ? items.join("") : `${items.slice(0, -1).join(", ")} or ${items.at(-1)!}`;
}

/** The `allOf` entry of the results schema that checks `name`'s rows against `$defs/<row>`. */
export function rowsConditional(name: string, row: string): JsonSchemaObject {
  return {
    if: { type: "object", required: ["benchmark"], properties: { benchmark: { const: name } } },
    then: { type: "object", properties: { rows: { type: "array", items: { $ref: `#/$defs/${row}` } } } },
  };
}

function benchmarkDescription(benchmarks: readonly BenchmarkDescriptor[]): string {
  const builtIn = benchmarks.filter((b) => b.runner.kind === "built-in");
  const external = benchmarks.filter((b) => b.runner.kind === "external");
  let text = `Which runner to start. ${builtIn.map((b) => `${code(b.name)}: ${b.summary}.`).join(" ")}`;
  if (external.length > 0)
    text += ` ${orList(external.map((b) => code(b.name)))} ${external.length === 1 ? "is an external runner" : "are external runners"} whose command the operator configures (never the request).`;
  return text;
}

function datasetDescription(benchmarks: readonly BenchmarkDescriptor[]): string {
  const own = benchmarks.filter((b) => b.datasets !== undefined);
  return `${code("sample")} (the benchmark's embedded set) or the benchmark's data. ${own.map((b) => `${b.name}: ${b.datasets!}.`).join(" ")}`;
}

function sandboxDescription(backends: readonly SandboxBackendDescriptor[]): string {
  return `Where untrusted code runs. ${backends.map((b) => `${code(b.name)}: ${b.summary}.`).join(" ")}`;
}

/** `$defs` that nothing in `schema` refers to any more (a removed benchmark's rows), besides `keep`. */
function unreferencedDefs(schema: Record<string, unknown>, keep: ReadonlySet<string>): string[] {
  const defs = (schema["$defs"] ?? {}) as Record<string, unknown>;
  const refs = new Set<string>();
  const walk = (v: unknown): void => {
    if (Array.isArray(v)) v.forEach(walk);
    else if (typeof v === "object" && v !== null)
      for (const [k, x] of Object.entries(v)) {
        if (k === "$ref" && typeof x === "string" && x.startsWith("#/$defs/")) refs.add(x.slice("#/$defs/".length));
        else walk(x);
      }
  };
  // Reachable from the schema outside $defs, then through the defs reached.
  walk({ ...schema, $defs: undefined });
  let size = -1;
  while (refs.size !== size) {
    size = refs.size;
    for (const name of [...refs]) walk(defs[name]);
  }
  return Object.keys(defs).filter((name) => !refs.has(name) && !keep.has(name));
}

/**
 * Every registry-owned part of the request and results schemas. `results` is the results schema as it is
 * now, for the `$defs` no benchmark refers to any more (removed); `row` (the common row) is always kept.
 */
export function registrySchemaParts(
  benchmarks: readonly BenchmarkSchemaInput[],
  backends: readonly SandboxBackendDescriptor[],
  results: Record<string, unknown>,
): SchemaPart[] {
  const descriptors = benchmarks.map((b) => b.descriptor);
  const withRows = benchmarks.filter((b) => b.descriptor.rowSchema !== null);
  for (const b of withRows)
    if (!(b.descriptor.rowSchema! in b.defs))
      throw new Error(`benchmark "${b.descriptor.name}": its resultsSchema has no $defs/${b.descriptor.rowSchema!}`);
  const defs: Record<string, JsonSchemaObject> = {};
  for (const b of withRows)
    for (const [name, def] of Object.entries(b.defs)) {
      if (name in defs || name === "row")
        throw new Error(`benchmark "${b.descriptor.name}": $defs/${name} is already taken`);
      defs[name] = def;
    }
  const allOf = withRows.map((b) => rowsConditional(b.descriptor.name, b.descriptor.rowSchema!));
  const names = backends.map((b) => b.name);
  const parts: SchemaPart[] = [
    {
      file: REQUEST_SCHEMA,
      path: ["properties", "benchmark", "description"],
      value: benchmarkDescription(descriptors),
    },
    { file: REQUEST_SCHEMA, path: ["properties", "benchmark", "enum"], value: descriptors.map((b) => b.name) },
    { file: REQUEST_SCHEMA, path: ["properties", "dataset", "description"], value: datasetDescription(descriptors) },
    { file: REQUEST_SCHEMA, path: ["properties", "sandbox", "description"], value: sandboxDescription(backends) },
    { file: REQUEST_SCHEMA, path: ["properties", "sandbox", "enum"], value: names },
    { file: REQUEST_SCHEMA, path: ["properties", "sandbox", "default"], value: names[0] },
    { file: RESULTS_SCHEMA, path: ["properties", "isolation", "properties", "backend", "enum"], value: names },
    {
      file: RESULTS_SCHEMA,
      path: ["properties", "isolation", "properties", "level", "enum"],
      value: [...new Set(backends.flatMap((b) => b.isolationLevels))],
    },
    ...Object.entries(defs).map(([name, def]) => ({ file: RESULTS_SCHEMA, path: ["$defs", name], value: def })),
    { file: RESULTS_SCHEMA, path: ["allOf"], value: allOf },
  ];
  const after = { ...results, $defs: { ...(results["$defs"] as object), ...defs }, allOf };
  for (const name of unreferencedDefs(after, new Set(["row"])))
    parts.push({ file: RESULTS_SCHEMA, path: ["$defs", name], value: undefined });
  return parts;
}

/** The registry's benchmarks with their rows' `$defs` loaded. */
export async function loadBenchmarkSchemas(
  benchmarks: readonly BenchmarkDescriptor[],
): Promise<BenchmarkSchemaInput[]> {
  return Promise.all(
    benchmarks.map(async (descriptor) => {
      if (descriptor.rowSchema !== null && descriptor.resultsSchema === undefined)
        throw new Error(`benchmark "${descriptor.name}" names rowSchema ${descriptor.rowSchema} but no resultsSchema`);
      return { descriptor, defs: descriptor.resultsSchema ? (await descriptor.resultsSchema()).$defs : {} };
    }),
  );
}
