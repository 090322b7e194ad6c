import { describe, expect, test } from "vitest";
import { readSchema } from "../../../src/util/schema.js";
import { RESULTS_SCHEMA_FILE } from "../../../src/results-file/document.js";
import type { RedcodeRow } from "../../../src/benchmarks/redcode/row.js";
import { allOfSchemaKeys, keysOf, type KeyFlags } from "../../support/schema-keys.js";

const defs = (readSchema(RESULTS_SCHEMA_FILE) as { $defs: Record<string, unknown> }).$defs;

describe("RedCode's row type declares its results schema definition's keys, required alike", () => {
  test("RedcodeRow: $defs/row + $defs/redcode_row", () => {
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
      scenario: true,
      language: true,
      index: true,
      score: true,
      input_mode: false,
      refusal_phrase: false,
      has_code: false,
      executed: false,
      isolation: false,
      output_tail: false,
      reply_tail: false,
      exit_code: false,
      interpreter: false,
      listener_requests: false,
      tampering: false,
      program_error: false,
      error_code: false,
    } satisfies KeyFlags<RedcodeRow>;
    expect(keysOf(flags)).toEqual(allOfSchemaKeys(defs["row"], defs["redcode_row"]));
  });
});
