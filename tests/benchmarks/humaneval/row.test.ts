import { describe, expect, test } from "vitest";
import { readSchema } from "../../../src/util/schema.js";
import { RESULTS_SCHEMA_FILE } from "../../../src/results-file/document.js";
import {
  KEPT_TAIL_CHARS,
  keptTail,
  type CompletionRecord,
  type HumanEvalRow,
} from "../../../src/benchmarks/humaneval/row.js";
import { allOfSchemaKeys, keysOf, schemaKeys, type KeyFlags } from "../../support/schema-keys.js";

const defs = (readSchema(RESULTS_SCHEMA_FILE) as { $defs: Record<string, unknown> }).$defs;

describe("HumanEval's row types declare their results schema definitions' keys, required alike", () => {
  test("HumanEvalRow: $defs/row + $defs/humaneval_row", () => {
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
      task_id: true,
      entry_point: true,
      interaction: false,
      n: true,
      num_correct: true,
      samples: true,
    } satisfies KeyFlags<HumanEvalRow>;
    expect(keysOf(flags)).toEqual(allOfSchemaKeys(defs["row"], defs["humaneval_row"]));
  });

  test("CompletionRecord: $defs/humaneval_sample", () => {
    const flags = {
      status: true,
      failure_mode: true,
      limit_breach: true,
      executed: true,
      duration_ms: true,
      completion_kind: true,
      completion: true,
      agent_seconds: true,
      usage: false,
      error: false,
      exit_code: false,
      signal: false,
      exception: false,
      reason: false,
      rounds: false,
      calls: false,
      stdout_tail: false,
      stderr_tail: false,
      reply_tail: false,
      exit_status: false,
      turns: false,
      commands: false,
      command_seconds: false,
      participant_seconds: false,
      truncations: false,
      trajectory: false,
      answer_source: false,
      episode_error: false,
    } satisfies KeyFlags<CompletionRecord>;
    expect(keysOf(flags)).toEqual(schemaKeys(defs["humaneval_sample"]));
  });
});

describe("keptTail: the end of a program's output a completion record keeps", () => {
  test("short text is kept whole; long text keeps its last KEPT_TAIL_CHARS characters", () => {
    expect(keptTail("abc")).toBe("abc");
    const long = "x".repeat(3 * KEPT_TAIL_CHARS) + "tail";
    expect(keptTail(long)).toBe(long.slice(-KEPT_TAIL_CHARS));
    expect(keptTail(long).endsWith("tail")).toBe(true);
  });

  test("a cut through a surrogate pair drops its orphaned low half", () => {
    const text = "a".repeat(KEPT_TAIL_CHARS) + "😀" + "b".repeat(KEPT_TAIL_CHARS - 1);
    const kept = keptTail(text);
    expect(kept).toBe("b".repeat(KEPT_TAIL_CHARS - 1));
    expect(kept.length).toBe(KEPT_TAIL_CHARS - 1);
  });
});
