import { describe, expect, test } from "vitest";
import {
  encodeTurnMessage,
  INTERACTIVE_TURN_SCHEMA_FILE,
  PROTOCOL_NAME,
  taskMessage,
  turnMessageProblems,
  type TurnMessage,
} from "../../src/interactive/protocol.js";
import { decodeReply } from "../../src/interactive/decode.js";
import { schemaProblems } from "../../src/util/schema.js";

describe("terminal-bench-shell-v1 messages", () => {
  test("the schema is a valid JSON Schema 2020-12 document", () => {
    expect(schemaProblems(INTERACTIVE_TURN_SCHEMA_FILE)).toEqual([]);
  });

  test("the task message is RDI's three fields when nothing else is given", () => {
    const text = encodeTurnMessage(taskMessage("Fix the bug"));
    expect(JSON.parse(text)).toEqual({ kind: "task", protocol: PROTOCOL_NAME, instruction: "Fix the bug" });
  });

  test("the task message carries the instance's facts and the limits, and validates", () => {
    const msg = taskMessage(
      "Fix it",
      { benchmark: "swebench", instance_id: "a__b-1", repo: "a/b", base_commit: "abc123", workdir: "/testbed" },
      { max_turns: 100, command_timeout_default_s: 60, command_timeout_max_s: 300, episode_time_s: 1800 },
    );
    expect(turnMessageProblems(JSON.parse(encodeTurnMessage(msg)))).toEqual([]);
    expect(msg.workdir).toBe("/testbed");
  });

  const valid: TurnMessage[] = [
    { kind: "exec_request", command: "ls -la" },
    { kind: "exec_request", command: "sleep 1", timeout: 5 },
    { kind: "final" },
    { kind: "final", output: "done" },
    { kind: "exec_result", exit_code: 0, stdout: "a", stderr: "" },
    {
      kind: "exec_result",
      exit_code: 124,
      stdout: "x",
      stderr: "y",
      timed_out: true,
      stdout_elided_chars: 10,
      stderr_elided_chars: 0,
      turn: 3,
      turns_left: 97,
      time_left_s: 1700,
    },
    { kind: "exec_result", exit_code: -1, stdout: "", stderr: "invalid", error: "no kind", turn: 2, turns_left: 0 },
  ];
  test.each(valid.map((m) => [m.kind, m] as const))("%s validates and round-trips through its text", (_k, msg) => {
    const back = JSON.parse(encodeTurnMessage(msg));
    expect(back).toEqual(msg);
    expect(turnMessageProblems(back)).toEqual([]);
  });

  test("participant messages round-trip through the decoder", () => {
    expect(
      decodeReply({ texts: [encodeTurnMessage({ kind: "exec_request", command: "pwd", timeout: 7 })], data: [] }),
    ).toMatchObject({ type: "exec", command: "pwd", timeoutS: 7 });
    expect(decodeReply({ texts: [encodeTurnMessage({ kind: "final", output: "ok" })], data: [] })).toMatchObject({
      type: "final",
      output: "ok",
    });
  });

  test.each([
    ["an unknown kind", { kind: "exec", command: "ls" }],
    ["an exec_request without a command", { kind: "exec_request" }],
    ["an empty command", { kind: "exec_request", command: "" }],
    ["a fractional timeout", { kind: "exec_request", command: "ls", timeout: 1.5 }],
    ["an exec_result missing stderr", { kind: "exec_result", exit_code: 0, stdout: "" }],
    ["an exec_result with an unknown key", { kind: "exec_result", exit_code: 0, stdout: "", stderr: "", x: 1 }],
    ["a task of another protocol", { kind: "task", protocol: "other", instruction: "x" }],
    ["negative turns left", { kind: "exec_result", exit_code: 0, stdout: "", stderr: "", turns_left: -1 }],
  ])("the schema refuses %s", (_what, value) => {
    expect(turnMessageProblems(value).length).toBeGreaterThan(0);
  });
});
