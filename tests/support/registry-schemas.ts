/**
 * The JSON schemas are the single source of truth for external shapes; the
 * registries are the single list of benchmarks and sandbox backends. These
 * checks tie the two: every name list and per-benchmark `if`/`then` of the
 * schemas must equal what the registries hold. Used by
 * tests/benchmarks/registry.test.ts and tests/sandbox/registry.test.ts (the
 * build writes these parts: tests/registry-schemas/).
 */
import { readSchema } from "../../src/util/schema.js";
import { INTERACTIONS, type BenchmarkDescriptor } from "../../src/benchmarks/descriptor.js";
import type { SandboxBackendDescriptor } from "../../src/sandbox/backend.js";
import { benchmarkDependentDefaults } from "../../src/request-config/schema.js";

type Json = Record<string, unknown>;

/** The two schema documents the registries must agree with. */
export interface RegistrySchemas {
  request: Json;
  results: Json;
}

export function readRegistrySchemas(): RegistrySchemas {
  return { request: readSchema("assessment_request.schema.json"), results: readSchema("results.schema.json") };
}

const obj = (v: unknown): Json => (typeof v === "object" && v !== null ? (v as Json) : {});
const strings = (v: unknown): string[] => (Array.isArray(v) ? v.filter((x): x is string => typeof x === "string") : []);

function isolation(results: Json): Json {
  return obj(obj(obj(results["properties"])["isolation"])["properties"]);
}

/** `name → $defs entry` of the results schema's `allOf` entries `if benchmark = name then rows are $defs/<entry>`. */
export function rowSchemasByBenchmark(results: Json): Map<string, string> {
  const map = new Map<string, string>();
  for (const entry of Array.isArray(results["allOf"]) ? (results["allOf"] as unknown[]) : []) {
    const name = obj(obj(obj(obj(entry)["if"])["properties"])["benchmark"])["const"];
    const ref = obj(obj(obj(obj(obj(entry)["then"])["properties"])["rows"])["items"])["$ref"];
    if (typeof name === "string" && typeof ref === "string") map.set(name, ref.replace(/^#\/\$defs\//, ""));
  }
  return map;
}

function sameSet(what: string, schema: readonly string[], registry: readonly string[]): string[] {
  const problems: string[] = [];
  for (const n of registry) if (!schema.includes(n)) problems.push(`${what} lacks "${n}"`);
  for (const n of schema) if (!registry.includes(n)) problems.push(`${what} has "${n}", which is not registered`);
  return problems;
}

/** Where the schemas and the benchmark registry disagree (empty: they agree). */
export function benchmarkSchemaMismatches(
  schemas: RegistrySchemas,
  benchmarks: readonly BenchmarkDescriptor[],
): string[] {
  const requestEnum = strings(obj(obj(schemas.request["properties"])["benchmark"])["enum"]);
  const problems = sameSet(
    "assessment_request.schema.json benchmark enum",
    requestEnum,
    benchmarks.map((b) => b.name),
  );
  problems.push(
    ...sameSet(
      "assessment_request.schema.json interaction enum",
      strings(obj(obj(schemas.request["properties"])["interaction"])["enum"]),
      INTERACTIONS,
    ),
  );
  for (const b of benchmarks)
    for (const i of b.interactions)
      if (!INTERACTIONS.includes(i)) problems.push(`benchmark "${b.name}" offers unknown interaction "${i}"`);
  const rows = rowSchemasByBenchmark(schemas.results);
  const defs = obj(schemas.results["$defs"]);
  const withRows = benchmarks.filter((b) => b.rowSchema !== null);
  problems.push(
    ...sameSet(
      "results.schema.json allOf (if benchmark … then rows)",
      [...rows.keys()],
      withRows.map((b) => b.name),
    ),
  );
  for (const b of withRows) {
    const ref = rows.get(b.name);
    if (ref !== undefined && ref !== b.rowSchema)
      problems.push(`results.schema.json rows of "${b.name}" are $defs/${ref}, its descriptor says ${b.rowSchema}`);
    if (!(b.rowSchema! in defs)) problems.push(`results.schema.json has no $defs/${b.rowSchema} (${b.name}'s rows)`);
  }
  problems.push(...defaultMismatches(schemas.request, benchmarks));
  return problems;
}

/**
 * Each benchmark's own config defaults (descriptor `defaults`) against what the request schema applies for
 * it: its `if benchmark = <name>` entry, else the entry's `else`, else the key's own default. A benchmark the
 * schema names in such an entry must declare that default in its descriptor too.
 */
function defaultMismatches(request: Json, benchmarks: readonly BenchmarkDescriptor[]): string[] {
  const problems: string[] = [];
  const dependent = benchmarkDependentDefaults(request);
  const props = obj(request["properties"]);
  const schemaDefault = (key: string, name: string): unknown => {
    const d = dependent[key];
    if (d !== undefined) return name in d.byBenchmark ? d.byBenchmark[name] : d.otherwise;
    return obj(props[key])["default"];
  };
  for (const b of benchmarks)
    for (const [key, value] of Object.entries(b.defaults ?? {}))
      if (schemaDefault(key, b.name) !== value)
        problems.push(
          `assessment_request.schema.json gives ${b.name} ${key} ${JSON.stringify(schemaDefault(key, b.name))}, its descriptor says ${JSON.stringify(value)}`,
        );
  for (const [key, d] of Object.entries(dependent))
    for (const name of Object.keys(d.byBenchmark)) {
      const b = benchmarks.find((x) => x.name === name);
      if (b !== undefined && !(key in (b.defaults ?? {})))
        problems.push(
          `assessment_request.schema.json sets ${name}'s ${key} default; its descriptor's defaults lack it`,
        );
    }
  return problems;
}

/** Where the schemas and the sandbox backend registry disagree (empty: they agree). */
export function backendSchemaMismatches(
  schemas: RegistrySchemas,
  backends: readonly SandboxBackendDescriptor[],
): string[] {
  const sandbox = obj(obj(schemas.request["properties"])["sandbox"]);
  const names = backends.map((b) => b.name);
  const problems = [
    ...sameSet("assessment_request.schema.json sandbox enum", strings(sandbox["enum"]), names),
    ...sameSet(
      "results.schema.json isolation.backend enum",
      strings(obj(isolation(schemas.results)["backend"])["enum"]),
      names,
    ),
    ...sameSet("results.schema.json isolation.level enum", strings(obj(isolation(schemas.results)["level"])["enum"]), [
      ...new Set(backends.flatMap((b) => b.isolationLevels)),
    ]),
  ];
  if (sandbox["default"] !== names[0])
    problems.push(
      `assessment_request.schema.json sandbox default is ${JSON.stringify(sandbox["default"])}, the registry's first backend "${names[0]}"`,
    );
  return problems;
}
