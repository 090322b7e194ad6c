import { describe, expect, test } from "vitest";
import { readSchema } from "../../src/util/schema.js";
import {
  RESULTS_SCHEMA_FILE,
  type ResultRow,
  type ResultsAggregate,
  type ResultsDocument,
  type ResultsError,
  type RunIsolation,
} from "../../src/results-file/document.js";
import { SMI_RESULTS_SCHEMA_FILE, type SmiPackage, type SmiResults } from "../../src/bundle/smi-results.js";
import type { ItemResult } from "../../src/runner/benchmark.js";
import { keysOf, schemaKeys, type KeyFlags } from "../support/schema-keys.js";

type Schema = { properties: Record<string, Schema>; $defs: Record<string, Schema>; items: Schema };
const results = readSchema(RESULTS_SCHEMA_FILE) as unknown as Schema;
const smi = readSchema(SMI_RESULTS_SCHEMA_FILE) as unknown as Schema;

// The runner's row type is the results row: each is assignable to the other.
const rowFromItem = (r: ItemResult): ResultRow => r;
const itemFromRow = (r: ResultRow): ItemResult => r;
void rowFromItem;
void itemFromRow;

describe("typed views of the results schemas declare the schemas' keys, required alike", () => {
  test("ResultsDocument: schemas/results.schema.json", () => {
    const flags = {
      schema_version: true,
      benchmark: true,
      run_id: true,
      status: true,
      error: true,
      infrastructure_failures: false,
      sandbox_failures_attributed_to_participant: false,
      partial: false,
      not_run: false,
      config: true,
      isolation: true,
      dataset: true,
      rows: true,
      aggregate: true,
    } satisfies KeyFlags<ResultsDocument>;
    expect(keysOf(flags)).toEqual(schemaKeys(results));
  });

  test("ResultRow: $defs/row", () => {
    const flags = {
      id: true,
      status: true,
      passed: true,
      elapsed_seconds: true,
      failure_mode: false,
      error: false,
      timed_out: false,
      usage: false,
      usage_source: false,
      traceability_usage: false,
      measured_usage: false,
      reason: false,
      provenance: false,
    } satisfies KeyFlags<ResultRow>;
    expect(keysOf(flags)).toEqual(schemaKeys(results.$defs["row"]));
  });

  test("ResultsError, RunIsolation, ResultsAggregate", () => {
    const error = { code: true, message: true } satisfies KeyFlags<ResultsError>;
    const isolation = { backend: true, level: true, warnings: true } satisfies KeyFlags<RunIsolation>;
    const aggregate = {
      failure_modes: true,
      pass_at_k: false,
      accuracy: false,
      efficiency: false,
      safety: false,
      adaptability: false,
      participant_errors: false,
      usage_by_source: false,
    } satisfies KeyFlags<ResultsAggregate>;
    expect(keysOf(error)).toEqual(schemaKeys(results.properties["error"]));
    expect(keysOf(isolation)).toEqual(schemaKeys(results.properties["isolation"]));
    expect(keysOf(aggregate)).toEqual(schemaKeys(results.properties["aggregate"]));
  });

  test("SmiResults and SmiPackage: schemas/smi_results.schema.json", () => {
    const doc = { schema_version: true, aggregate: false, packages: true } satisfies KeyFlags<SmiResults>;
    const pkg = {
      package_id: true,
      score: false,
      error: false,
      elapsed_seconds: false,
      timed_out: false,
      plan_attempts: false,
      sim_attempts: false,
    } satisfies KeyFlags<SmiPackage>;
    expect(keysOf(doc)).toEqual(schemaKeys(smi));
    expect(keysOf(pkg)).toEqual(schemaKeys(smi.properties["packages"]!.items));
  });
});
