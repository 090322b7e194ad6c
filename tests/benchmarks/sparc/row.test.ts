import { describe, expect, test } from "vitest";
import { readSchema } from "../../../src/util/schema.js";
import { RESULTS_SCHEMA_FILE } from "../../../src/results-file/document.js";
import type { SparcRow } from "../../../src/benchmarks/sparc/row.js";
import { allOfSchemaKeys, keysOf, type KeyFlags } from "../../support/schema-keys.js";

const defs = (readSchema(RESULTS_SCHEMA_FILE) as { $defs: Record<string, unknown> }).$defs;

describe("SPARC's row type declares its results schema definition's keys, required alike", () => {
  test("SparcRow: $defs/row + $defs/sparc_row", () => {
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
      language: true,
      benchmark_type: true,
      benchmark_name: true,
      execution_ms: true,
      timeout_ms: true,
      output: true,
      limit_breach: true,
      exit_code: true,
      signal: true,
    } satisfies KeyFlags<SparcRow>;
    expect(keysOf(flags)).toEqual(allOfSchemaKeys(defs["row"], defs["sparc_row"]));
  });
});
