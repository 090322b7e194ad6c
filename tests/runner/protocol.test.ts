import { describe, expect, test } from "vitest";
import {
  EVENT_PREFIX,
  RUNNER_EVENT_NAMES,
  RUNNER_EVENT_SCHEMA_FILE,
  formatEventLine,
  parseRunnerLine,
  type CheckpointWrittenEvent,
  type PackageFinishedEvent,
  type TurnEvent,
  type PackageStartedEvent,
  type RunFinishedEvent,
  type RunStartedEvent,
  type RunnerEvent,
  type TaskFinishedEvent,
  type TaskStartedEvent,
} from "../../src/runner/protocol.js";
import { readSchema } from "../../src/util/schema.js";
import { keysOf, schemaKeys, type KeyFlags } from "../support/schema-keys.js";

const schema = readSchema(RUNNER_EVENT_SCHEMA_FILE) as { $defs: Record<string, unknown> };

// Each event type's declared keys (the compiler checks the literal against the type).
const typeKeys: Record<RunnerEvent["event"], Record<string, boolean>> = {
  run_started: {
    event: true,
    run_id: true,
    benchmark: true,
    total: true,
    samples_requested: false,
    dataset_items: false,
    resumed: false,
    time_budget_seconds: false,
    budget_left_seconds: false,
  } satisfies KeyFlags<RunStartedEvent>,
  task_started: { event: true, task_id: true, i: true, total: false } satisfies KeyFlags<TaskStartedEvent>,
  task_finished: {
    event: true,
    task_id: true,
    i: true,
    status: true,
    passed: true,
    elapsed_seconds: false,
    done: false,
    total: false,
    passed_so_far: false,
    failure_mode: false,
  } satisfies KeyFlags<TaskFinishedEvent>,
  checkpoint_written: { event: true, path: false, done: false } satisfies KeyFlags<CheckpointWrittenEvent>,
  run_finished: {
    event: true,
    results_path: false,
    run_metadata_path: false,
    events_path: false,
    aggregate: false,
    partial: false,
    not_run: false,
  } satisfies KeyFlags<RunFinishedEvent>,
  package_started: { event: true, package_id: true, i: true } satisfies KeyFlags<PackageStartedEvent>,
  package_finished: {
    event: true,
    package_id: true,
    i: true,
    elapsed_seconds: false,
    error: false,
    timed_out: false,
  } satisfies KeyFlags<PackageFinishedEvent>,
  turn: { event: true, task_id: true, turn: true, status: true } satisfies KeyFlags<TurnEvent>,
};

describe("runner event types and schemas/runner_event.schema.json", () => {
  test("the schema has one definition per event name, and the event enum lists them all", () => {
    expect(Object.keys(schema.$defs).sort()).toEqual([...RUNNER_EVENT_NAMES].sort());
    const enumNames = (schema as unknown as { properties: { event: { enum: string[] } } }).properties.event.enum;
    expect([...enumNames].sort()).toEqual([...RUNNER_EVENT_NAMES].sort());
  });

  test.each(RUNNER_EVENT_NAMES)("%s: the type declares the schema's keys, required alike", (name) => {
    expect(keysOf(typeKeys[name])).toEqual(schemaKeys(schema.$defs[name]));
  });
});

describe("parseRunnerLine", () => {
  test("plain output is output", () => {
    expect(parseRunnerLine("hello")).toEqual({ kind: "output", line: "hello" });
  });

  test("an event the runner writes comes back as that event", () => {
    const events: RunnerEvent[] = [
      { event: "run_started", run_id: "r", benchmark: "humaneval", total: 2, resumed: 0, isolation: "bwrap" },
      { event: "task_started", task_id: "HumanEval/0", i: 0, total: 2 },
      {
        event: "task_finished",
        task_id: "HumanEval/0",
        i: 0,
        status: "passed",
        passed: true,
        elapsed_seconds: 0.1,
        done: 1,
        total: 2,
        passed_so_far: 1,
      },
      { event: "checkpoint_written", path: "/o/checkpoint.jsonl", done: 1 },
      { event: "run_finished", status: "ok", error: null, results_path: "/o/results.json", aggregate: { a: 1 } },
      { event: "package_started", package_id: "0xa", i: 0 },
      { event: "package_finished", package_id: "0xa", i: 0, error: null, timed_out: false, created_hits: 2 },
    ];
    for (const ev of events) {
      expect(parseRunnerLine(formatEventLine(ev).trimEnd())).toEqual({ kind: "event", event: ev });
    }
  });

  test.each([
    ["not JSON", `${EVENT_PREFIX}{not json`, /not JSON/],
    ["an array", `${EVENT_PREFIX}[1,2,3]`, /not a JSON object/],
    ["an unknown event", `${EVENT_PREFIX}{"event":"no_such_event"}`, /unknown event "no_such_event"/],
    ["no event name", `${EVENT_PREFIX}{"run_id":"r"}`, /unknown event undefined/],
    [
      "a missing required key",
      `${EVENT_PREFIX}{"event":"task_finished","task_id":"t","i":0,"passed":true}`,
      /invalid task_finished: .*"status"/,
    ],
    [
      "a key of the wrong type",
      `${EVENT_PREFIX}{"event":"run_started","run_id":"r","benchmark":"b","total":"2"}`,
      /invalid run_started: \/total/,
    ],
    [
      "a negative position",
      `${EVENT_PREFIX}{"event":"task_started","task_id":"t","i":-1}`,
      /invalid task_started: \/i/,
    ],
    [
      "an aggregate that is not an object",
      `${EVENT_PREFIX}{"event":"run_finished","aggregate":[1]}`,
      /invalid run_finished: \/aggregate/,
    ],
    [
      "a package id that is not a string",
      `${EVENT_PREFIX}{"event":"package_started","package_id":7,"i":0}`,
      /invalid package_started: \/package_id/,
    ],
  ])("%s is a bad event with the reason, never a throw", (_what, line, reason) => {
    const parsed = parseRunnerLine(line);
    expect(parsed.kind).toBe("bad-event");
    if (parsed.kind === "bad-event") {
      expect(parsed.line).toBe(line);
      expect(parsed.reason).toMatch(reason);
    }
  });
});
