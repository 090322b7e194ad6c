import { describe, expect, test } from "vitest";
import { decodeAssessorMessage } from "../../../src/purple/interactive/assessor-message.js";
import { encodeTurnMessage, taskMessage, turnMessageProblems } from "../../../src/interactive/protocol.js";

describe("purple side: is this text an assessor's message of terminal-bench-shell-v1?", () => {
  test("the green's own task message decodes to itself (schema-valid)", () => {
    const sent = taskMessage(
      "Fix it",
      { benchmark: "swebench", instance_id: "a__b-1", workdir: "/testbed" },
      { max_turns: 9 },
    );
    const got = decodeAssessorMessage(encodeTurnMessage(sent));
    expect(got).toEqual(sent);
    expect(turnMessageProblems(got)).toEqual([]);
  });

  test("RDI's bare task (no protocol field) and exec_result; extra and ill-typed fields dropped", () => {
    expect(decodeAssessorMessage('{"kind":"task","instruction":"go","x":1,"max_turns":"ten"}')).toEqual({
      kind: "task",
      protocol: "terminal-bench-shell-v1",
      instruction: "go",
    });
    const r = decodeAssessorMessage(
      '{"kind":"exec_result","exit_code":2,"stdout":"o","turns_left":3,"timed_out":"no"}',
    );
    expect(r).toEqual({ kind: "exec_result", exit_code: 2, stdout: "o", stderr: "", turns_left: 3 });
    expect(decodeAssessorMessage('{"kind":"exec_result"}')).toMatchObject({ exit_code: -1, stdout: "", stderr: "" });
  });

  test.each([
    ["plain text", "Complete the function"],
    ["a JSON array", "[1]"],
    ["a participant's kind", '{"kind":"final"}'],
    ["another protocol", '{"kind":"task","protocol":"other-v2","instruction":"x"}'],
    ["no kind", '{"task_id":"HumanEval/0"}'],
  ])("%s is not this protocol (answered single-shot)", (_what, text) => {
    expect(decodeAssessorMessage(text)).toBeUndefined();
  });

  test("a task without an instruction is an error naming it", () => {
    expect(() => decodeAssessorMessage('{"kind":"task"}')).toThrow("a `task` message needs a string `instruction`");
  });
});
