import { describe, expect, test } from "vitest";
import { readSchema } from "../../../src/util/schema.js";
import { RESULTS_SCHEMA_FILE } from "../../../src/results-file/document.js";
import type { SwebenchRow } from "../../../src/benchmarks/swebench/row.js";
import { allOfSchemaKeys, keysOf, type KeyFlags } from "../../support/schema-keys.js";

const defs = (readSchema(RESULTS_SCHEMA_FILE) as { $defs: Record<string, unknown> }).$defs;

describe("SWE-bench's row type declares its results schema definition's keys, required alike", () => {
  test("SwebenchRow: $defs/row + $defs/swebench_row", () => {
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
      model_name_or_path: true,
      submitted: true,
      patch_is_None: true,
      patch_exists: true,
      patch_successfully_applied: true,
      resolved: true,
      infra_failure: false,
      infra_failure_reason: false,
      tests_status: false,
      apply_strategy: true,
      touches_test_config: true,
      test_config_flags: true,
      resolved_strict: true,
      grading_rules: true,
      report_path: true,
      artifacts_dir: true,
      error_code: false,
      strict_tests_voided: false,
      interpreter_missing: false,
      log_void: false,
      infra_signature: false,
      interaction: false,
      exit_status: false,
      turns: false,
      commands: false,
      command_seconds: false,
      participant_seconds: false,
      truncations: false,
      trajectory: false,
      episode_error: false,
    } satisfies KeyFlags<SwebenchRow>;
    expect(keysOf(flags)).toEqual(allOfSchemaKeys(defs["row"], defs["swebench_row"]));
  });
});
