import { describe, expect, it } from "vitest";
import { existsSync, readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import {
  benchmarkDescriptors,
  benchmarkNames,
  defineBenchmark,
  getBenchmark,
  isExternalBenchmark,
  knownBenchmarks,
  registerBenchmark,
} from "../../src/benchmarks/index.js";
import { packageRoot } from "../../src/util/package-root.js";
import { benchmarkSchemaMismatches, readRegistrySchemas } from "../support/registry-schemas.js";

const BENCHMARKS_DIR = join(packageRoot, "src", "benchmarks");
// A benchmark's folder is one with a descriptor (scoring/ holds helpers any benchmark may use).
const folders = readdirSync(BENCHMARKS_DIR, { withFileTypes: true })
  .filter((e) => e.isDirectory() && existsSync(join(BENCHMARKS_DIR, e.name, "descriptor.ts")))
  .map((e) => e.name)
  .sort();

describe("benchmark registry", () => {
  it("the request schema's benchmark enum and the results schema's row if/thens equal the registry", () => {
    expect(benchmarkSchemaMismatches(readRegistrySchemas(), benchmarkDescriptors())).toEqual([]);
  });

  it("the checker fails when they differ: a schema without a registered benchmark, or with an unregistered one", () => {
    const schemas = readRegistrySchemas();
    const withoutSparc = benchmarkDescriptors().filter((d) => d.name !== "sparc");
    expect(benchmarkSchemaMismatches(schemas, withoutSparc)).toEqual([
      'assessment_request.schema.json benchmark enum has "sparc", which is not registered',
      'results.schema.json allOf (if benchmark … then rows) has "sparc", which is not registered',
    ]);
    const oddInteraction = benchmarkDescriptors().map((d) =>
      d.name === "redcode" ? { ...d, interactions: ["chat"] as never } : d,
    );
    expect(benchmarkSchemaMismatches(schemas, oddInteraction)).toEqual([
      'benchmark "redcode" offers unknown interaction "chat"',
    ]);
    const request = {
      ...schemas.request,
      properties: { ...(schemas.request["properties"] as object), interaction: { enum: ["single_shot"] } },
    };
    expect(benchmarkSchemaMismatches({ ...schemas, request }, benchmarkDescriptors())).toEqual([
      'assessment_request.schema.json interaction enum lacks "interactive"',
    ]);
    const slowerTests = benchmarkDescriptors().map((d) =>
      d.name === "swebench" ? { ...d, defaults: { per_task_timeout_seconds: 60 } } : d,
    );
    expect(benchmarkSchemaMismatches(schemas, slowerTests)).toEqual([
      "assessment_request.schema.json gives swebench per_task_timeout_seconds 1800, its descriptor says 60",
    ]);
    const silent = benchmarkDescriptors().map((d) => (d.name === "swebench" ? { ...d, defaults: {} } : d));
    expect(benchmarkSchemaMismatches(schemas, silent)).toEqual([
      "assessment_request.schema.json sets swebench's per_task_timeout_seconds default; its descriptor's defaults lack it",
    ]);
    const renamedRows = benchmarkDescriptors().map((d) => (d.name === "redcode" ? { ...d, rowSchema: "red_row" } : d));
    expect(benchmarkSchemaMismatches(schemas, renamedRows)).toEqual([
      'results.schema.json rows of "redcode" are $defs/redcode_row, its descriptor says red_row',
      "results.schema.json has no $defs/red_row (redcode's rows)",
    ]);
  });

  it("every folder of src/benchmarks is one registered benchmark of the same name, and back", () => {
    expect(folders).toEqual([...benchmarkNames()].sort());
    for (const name of folders) expect(existsSync(join(BENCHMARKS_DIR, name, "descriptor.ts")), name).toBe(true);
    // The built-in runners' plug-ins are each folder's definition.ts.
    for (const name of knownBenchmarks())
      expect(existsSync(join(BENCHMARKS_DIR, name, "definition.ts")), name).toBe(true);
  });

  it("descriptors are import-cheap: they import only types and the descriptor helper; code loads on use", () => {
    for (const name of folders) {
      const text = readFileSync(join(BENCHMARKS_DIR, name, "descriptor.ts"), "utf8");
      const valueImports = [...text.matchAll(/^import\s+(?!type\b)[^;]*?from\s+"([^"]+)"/gms)].map((m) => m[1]);
      expect(valueImports, name).toEqual(["../descriptor.js"]);
    }
  });

  it("each built-in plug-in loads lazily, carries its registered name and answers needs-participant like its descriptor", async () => {
    for (const d of benchmarkDescriptors()) {
      const interactive = d.name === "swebench" || d.name === "humaneval";
      expect(d.interactions).toEqual(
        d.name === "terminal" ? ["interactive"] : interactive ? ["single_shot", "interactive"] : ["single_shot"],
      );
      if (d.runner.kind === "external") continue;
      const def = await getBenchmark(d.name);
      expect(def.name).toBe(d.name);
      for (const config of [{}, { predictions: "p.jsonl" }, { replay_dataset_code: true }]) {
        const c = { benchmark: d.name, ...config };
        expect(
          def.needsParticipant({ ...c, run_id: "r", out: "/nonexistent" } as never),
          `${d.name} ${JSON.stringify(config)}`,
        ).toBe(d.needsParticipant(c));
      }
    }
  });

  it("smi-inhabit is registered as an external runner: a known name, not a built-in runner", async () => {
    expect(benchmarkNames()).toContain("smi-inhabit");
    expect(isExternalBenchmark("smi-inhabit")).toBe(true);
    expect(isExternalBenchmark("humaneval")).toBe(false);
    expect(knownBenchmarks()).not.toContain("smi-inhabit");
    const refused = await getBenchmark("smi-inhabit").then(
      () => "",
      (err: unknown) => (err as Error).message,
    );
    expect(refused).toMatch(/^unknown benchmark "smi-inhabit" \(known: .*\bhumaneval\b/);
    expect(refused).not.toMatch(/known: .*smi-inhabit/);
  });

  it("registration refuses a taken name, a name that is not kebab-case and a benchmark with no interaction", () => {
    const base = defineBenchmark({
      name: "humaneval",
      summary: "twin",
      interactions: ["single_shot"],
      needsParticipant: () => true,
      rowSchema: null,
      sandboxNeeds: [],
      hostNeeds: () => [],
      runner: { kind: "external" },
    });
    expect(() => registerBenchmark(base)).toThrow('benchmark "humaneval" is already registered');
    expect(() => registerBenchmark({ ...base, name: "Bad Name" })).toThrow("lower-case kebab-case");
    expect(() => registerBenchmark({ ...base, name: "mute", interactions: [] })).toThrow("supports no interaction");
    expect(benchmarkNames()).not.toContain("mute");
    const unregister = registerBenchmark({ ...base, name: "twin" });
    expect(benchmarkNames()).toContain("twin");
    unregister();
    expect(benchmarkNames()).not.toContain("twin");
  });
});
