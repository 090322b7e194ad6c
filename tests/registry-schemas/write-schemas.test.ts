/**
 * The schemas' benchmark and backend parts are the registries' (written by the build): the committed schemas
 * hold them, a benchmark or backend registered adds its own, one removed takes its rows' `$defs` with it,
 * and the rest of a schema's text is left as it was.
 */
import { afterEach, describe, expect, it } from "vitest";
import { format, resolveConfig } from "prettier";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { benchmarkDescriptors, defineBenchmark, registerBenchmark } from "../../src/benchmarks/index.js";
import { defineSandboxBackend, registerSandboxBackend, sandboxBackends } from "../../src/sandbox/index.js";
import {
  loadBenchmarkSchemas,
  registrySchemaParts,
  REQUEST_SCHEMA,
  RESULTS_SCHEMA,
} from "../../src/registry-schemas/registry-parts.js";
import { applyParts, currentRegistryParts, staleParts } from "../../src/registry-schemas/write-schemas.js";
import { createAjv, schemaProblems } from "../../src/util/schema.js";
import { schemasDir } from "../../src/util/package-root.js";

type Json = Record<string, unknown>;
const text = (file: string): string => readFileSync(join(schemasDir, file), "utf8");
const applied = (file: string, parts: Awaited<ReturnType<typeof currentRegistryParts>>): Json =>
  JSON.parse(
    applyParts(
      text(file),
      parts.filter((p) => p.file === file),
    ),
  ) as Json;

const toy = defineBenchmark({
  name: "toy-bench",
  summary: "a toy benchmark of the schema test",
  interactions: ["single_shot"],
  needsParticipant: () => true,
  rowSchema: "toy_bench_row",
  resultsSchema: async () => ({
    $defs: {
      toy_bench_row: {
        type: "object",
        allOf: [{ $ref: "#/$defs/row" }],
        required: ["toy"],
        properties: { toy: { type: "string" } },
      },
    },
  }),
  datasets: "a toy file",
  sandboxNeeds: [],
  hostNeeds: () => [],
  runner: { kind: "built-in", load: () => Promise.reject(new Error("not run here")) },
});

const toyBackend = defineSandboxBackend({
  name: "toy-box",
  summary: "a toy backend of the schema test",
  isolationLevels: ["toy-level"],
  fullIsolation: [],
  capabilities: new Set([]),
  preflight: { env: [], programs: [], unavailableFix: "none" },
  selectionEnv: { names: [], prefixes: [] },
  load: () => Promise.reject(new Error("not run here")),
});

let undo: Array<() => void> = [];
afterEach(() => {
  for (const u of undo) u();
  undo = [];
});

describe("the schemas' registry parts", () => {
  it("the committed schemas hold every part the registries give (npm run build writes them)", async () => {
    const parts = await currentRegistryParts();
    expect(parts.length).toBeGreaterThan(0);
    for (const file of [REQUEST_SCHEMA, RESULTS_SCHEMA]) {
      const stale = staleParts(
        text(file),
        parts.filter((p) => p.file === file),
      ).map((p) => p.path.join("."));
      expect(stale, `${file}: run npm run build`).toEqual([]);
    }
  });

  it("a registered benchmark and backend are written in: enums, descriptions, row $defs and their if/then", async () => {
    undo = [registerBenchmark(toy), registerSandboxBackend(toyBackend)];
    const parts = await currentRegistryParts();
    const request = applied(REQUEST_SCHEMA, parts);
    const results = applied(RESULTS_SCHEMA, parts);
    const props = request["properties"] as Record<string, Json>;
    expect(props["benchmark"]!["enum"]).toContain("toy-bench");
    expect(props["benchmark"]!["description"]).toContain("`toy-bench`: a toy benchmark of the schema test.");
    expect(props["dataset"]!["description"]).toContain("toy-bench: a toy file.");
    expect(props["sandbox"]!["enum"]).toContain("toy-box");
    expect(props["sandbox"]!["description"]).toContain("`toy-box`: a toy backend of the schema test.");
    const iso = ((results["properties"] as Json)["isolation"] as Json)["properties"] as Record<string, Json>;
    expect(iso["backend"]!["enum"]).toContain("toy-box");
    expect(iso["level"]!["enum"]).toContain("toy-level");
    expect((results["$defs"] as Json)["toy_bench_row"]).toBeDefined();
    for (const [file, schema] of [
      [REQUEST_SCHEMA, request],
      [RESULTS_SCHEMA, results],
    ] as const)
      expect(schemaProblems(file, schema)).toEqual([]);
    // Its rows are checked against its $defs entry.
    const validate = createAjv().compile(results);
    const row = { id: "t/1", status: "passed", passed: true, elapsed_seconds: 0.1 };
    const base = {
      schema_version: 1,
      benchmark: "toy-bench",
      run_id: "toy-1",
      status: "ok",
      error: null,
      config: {},
      isolation: { backend: "toy-box", level: "toy-level", warnings: [] },
      dataset: { path: "sample", sha256: "0".repeat(64) },
      aggregate: { failure_modes: {} },
    };
    expect(validate({ ...base, rows: [{ ...row, toy: "x" }] }), JSON.stringify(validate.errors)).toBe(true);
    expect(validate({ ...base, rows: [row] })).toBe(false);
  });

  it("only the registry parts change: the rest of the text is kept (formatted as the build formats it)", async () => {
    undo = [registerBenchmark(toy)];
    const before = text(REQUEST_SCHEMA);
    const unformatted = applyParts(
      before,
      (await currentRegistryParts()).filter((p) => p.file === REQUEST_SCHEMA),
    );
    const after = await format(unformatted, {
      ...(await resolveConfig(join(schemasDir, REQUEST_SCHEMA))),
      parser: "json",
    });
    const lines = new Set(before.split("\n"));
    const changed = after.split("\n").filter((line) => !lines.has(line));
    expect(changed.length).toBeGreaterThan(0);
    expect(
      changed.every((line) => /^\s*"(description|enum)": /.test(line)),
      changed.join("\n"),
    ).toBe(true);
    expect(after.split("\n").length).toBe(before.split("\n").length);
  });

  it("a benchmark removed takes its rows' $defs and if/then with it; the common row stays", async () => {
    const without = benchmarkDescriptors().filter((d) => d.name !== "humaneval");
    const results = JSON.parse(text(RESULTS_SCHEMA)) as Json;
    const parts = registrySchemaParts(await loadBenchmarkSchemas(without), sandboxBackends(), results);
    const after = JSON.parse(
      applyParts(
        text(RESULTS_SCHEMA),
        parts.filter((p) => p.file === RESULTS_SCHEMA),
      ),
    ) as Json;
    const defs = Object.keys(after["$defs"] as Json);
    expect(defs).not.toContain("humaneval_row");
    expect(defs).not.toContain("humaneval_sample");
    expect(defs).toContain("row");
    expect(JSON.stringify(after["allOf"])).not.toContain('"humaneval"');
    expect(schemaProblems(RESULTS_SCHEMA, after)).toEqual([]);
  });

  it("refuses a benchmark whose fragment lacks its row or takes a $defs name already used", async () => {
    const results = JSON.parse(text(RESULTS_SCHEMA)) as Json;
    const lacking = { descriptor: toy, defs: {} };
    expect(() => registrySchemaParts([lacking], sandboxBackends(), results)).toThrow(
      'benchmark "toy-bench": its resultsSchema has no $defs/toy_bench_row',
    );
    const taking = { descriptor: toy, defs: { toy_bench_row: {}, row: {} } };
    expect(() => registrySchemaParts([taking], sandboxBackends(), results)).toThrow("$defs/row is already taken");
  });
});
