import { describe, expect, test } from "vitest";
import { TaskState } from "@a2a-js/sdk";
import { decodeReply, decodeValue, parseJsonLoose } from "../../src/interactive/decode.js";
import { replyContent } from "../../src/interactive/reply-content.js";
import { SUBMIT_SENTINEL } from "../../src/interactive/sentinel.js";
import { dataPart, messageReply, taskReply, textPart } from "./replies.js";

const fromTexts = (...texts: string[]) => decodeReply({ texts, data: [] });

describe("terminal-bench-shell-v1", () => {
  test("exec_request → exec with the clamped timeout", () => {
    expect(fromTexts('{"kind":"exec_request","command":"ls","timeout":999}')).toEqual({
      type: "exec",
      command: "ls",
      timeoutS: 300,
      submitOnSentinel: false,
      dialect: "terminal-bench",
    });
  });

  test("no timeout → the episode's default (60 s unless given)", () => {
    expect(fromTexts('{"kind":"exec_request","command":"ls"}')).toMatchObject({ timeoutS: 60 });
    expect(decodeReply({ texts: ['{"kind":"exec_request","command":"ls"}'], data: [] }, 20)).toMatchObject({
      timeoutS: 20,
    });
  });

  test("final with and without output", () => {
    expect(fromTexts('{"kind":"final","output":"all done"}')).toEqual({
      type: "final",
      output: "all done",
      dialect: "terminal-bench",
    });
    expect(fromTexts('{"kind":"final"}')).toMatchObject({ type: "final", output: "" });
  });

  test("an unknown kind is invalid, naming it", () => {
    const action = fromTexts('{"kind":"run","command":"ls"}');
    expect(action.type).toBe("invalid");
    expect(action.type === "invalid" && action.reason).toMatch(/unknown kind "run"/);
  });

  test("exec_request with a blank command is invalid", () => {
    expect(fromTexts('{"kind":"exec_request","command":"  "}').type).toBe("invalid");
    expect(fromTexts('{"kind":"exec_request","command":5}').type).toBe("invalid");
  });

  test("a command over 64 KiB is invalid, naming the limit; one at the limit runs", () => {
    const at = "x".repeat(64 * 1024);
    expect(decodeValue({ kind: "exec_request", command: at }).type).toBe("exec");
    const over = decodeValue({ kind: "exec_request", command: `${at}é` });
    expect(over.type === "invalid" && over.reason).toMatch(/65538 bytes is over the 65536-byte limit/);
  });

  test("JSON in a Markdown code fence is read", () => {
    expect(fromTexts('```json\n{"kind":"exec_request","command":"pwd"}\n```')).toMatchObject({
      type: "exec",
      command: "pwd",
    });
  });

  test("a JSON object without kind, action or name is invalid", () => {
    expect(fromTexts('{"command":"ls"}').type).toBe("invalid");
  });
});

describe("text that is not JSON", () => {
  test("is final with the text as output (as RDI's green)", () => {
    expect(fromTexts("I fixed the bug.")).toEqual({ type: "final", output: "I fixed the bug.", dialect: "text" });
  });

  test("a JSON scalar is text too", () => {
    expect(fromTexts("42")).toMatchObject({ type: "final", output: "42" });
  });

  test("an empty reply is final with empty output", () => {
    expect(decodeReply({ texts: [], data: [] })).toEqual({ type: "final", output: "", dialect: "text" });
  });

  test("prose beside a JSON action does not hide the action", () => {
    expect(fromTexts("working on it", '{"kind":"exec_request","command":"ls"}')).toMatchObject({ type: "exec" });
  });
});

describe("AgentSWE {action, content}", () => {
  test("bash and debug run the content", () => {
    expect(decodeValue({ action: "bash", content: "grep -rn foo ." })).toMatchObject({
      type: "exec",
      command: "grep -rn foo .",
      dialect: "agentswe",
    });
    expect(decodeValue({ action: "debug", content: "python t.py" })).toMatchObject({ type: "exec" });
  });

  test("patch is final with the diff as output, marked as the agent's change", () => {
    const diff = "diff --git a/x b/x\n--- a/x\n+++ b/x\n";
    expect(decodeValue({ action: "patch", content: diff })).toEqual({
      type: "final",
      output: diff,
      dialect: "agentswe",
      patch: true,
    });
  });

  test("another action is invalid", () => {
    expect(decodeValue({ action: "browse", content: "x" }).type).toBe("invalid");
  });
});

describe("tool calls", () => {
  test("tau2's {name, arguments}: bash runs arguments.command", () => {
    expect(decodeValue({ name: "bash", arguments: { command: "ls", timeout: 10 } })).toEqual({
      type: "exec",
      command: "ls",
      timeoutS: 10,
      submitOnSentinel: false,
      dialect: "tool-call",
    });
  });

  test("arguments as a JSON string (OpenAI style) and the function wrapper", () => {
    expect(decodeValue({ function: { name: "execute_bash", arguments: '{"command":"pwd"}' } })).toMatchObject({
      type: "exec",
      command: "pwd",
    });
  });

  test.each(["submit", "final", "done", "Finish"])("%s ends the episode with its output", (name) => {
    expect(decodeValue({ name, arguments: { output: "patch" } })).toEqual({
      type: "final",
      output: "patch",
      dialect: "tool-call",
    });
  });

  test("an unknown tool, or arguments that are not an object, are invalid", () => {
    expect(decodeValue({ name: "search_web", arguments: {} }).type).toBe("invalid");
    expect(decodeValue({ name: "bash", arguments: "not json" }).type).toBe("invalid");
    expect(decodeValue({ name: "bash", arguments: {} }).type).toBe("invalid");
  });

  test("CAR-bench style: a list of calls in a DataPart", () => {
    const reply = taskReply({
      artifacts: [[dataPart({ tool_calls: [{ name: "bash", arguments: { command: "ls" } }] })]],
    });
    expect(decodeReply(replyContent(reply))).toMatchObject({ type: "exec", command: "ls", dialect: "tool-call" });
  });

  test("a JSON list of one call in text is read", () => {
    expect(fromTexts('[{"name":"submit","arguments":{"answer":"42"}}]')).toMatchObject({ type: "final", output: "42" });
  });

  test("two different calls in one reply are invalid (one action per turn)", () => {
    const action = decodeValue({
      tool_calls: [
        { name: "bash", arguments: { command: "ls" } },
        { name: "bash", arguments: { command: "pwd" } },
      ],
    });
    expect(action.type === "invalid" && action.reason).toMatch(/one action per turn/);
  });

  test("an empty list of calls is invalid", () => {
    expect(decodeValue({ tool_calls: [] }).type).toBe("invalid");
  });
});

describe("mini-swe-agent's sentinel", () => {
  test("a command that starts by echoing it is marked submitOnSentinel, in any dialect", () => {
    const command = `echo ${SUBMIT_SENTINEL} && git add -A && git diff --cached`;
    expect(decodeValue({ kind: "exec_request", command })).toMatchObject({ type: "exec", submitOnSentinel: true });
    expect(decodeValue({ name: "bash", arguments: { command } })).toMatchObject({ submitOnSentinel: true });
    expect(decodeValue({ action: "bash", content: command })).toMatchObject({ submitOnSentinel: true });
  });
});

describe("where the reply is read from", () => {
  const exec = { kind: "exec_request", command: "ls" };

  test("the same JSON in the status message and in an artifact counts once", () => {
    const reply = taskReply({
      status: [textPart(JSON.stringify(exec))],
      artifacts: [[textPart(JSON.stringify(exec))]],
    });
    expect(replyContent(reply).texts).toHaveLength(2);
    expect(decodeReply(replyContent(reply))).toMatchObject({ type: "exec", command: "ls" });
  });

  test("the same object with its keys in another order, as text and as a DataPart, counts once", () => {
    const reply = taskReply({
      status: [textPart('{"command":"ls","kind":"exec_request"}')],
      artifacts: [[dataPart(exec)]],
    });
    expect(decodeReply(replyContent(reply))).toMatchObject({ type: "exec", command: "ls" });
  });

  test("different actions in status and artifact make the reply invalid", () => {
    const reply = taskReply({
      status: [textPart(JSON.stringify(exec))],
      artifacts: [[textPart('{"kind":"final"}')]],
    });
    const action = decodeReply(replyContent(reply));
    expect(action.type === "invalid" && action.reason).toMatch(/2 different actions/);
  });

  test("a DataPart that is not an action yields to the action beside it", () => {
    const reply = taskReply({ artifacts: [[textPart(JSON.stringify(exec)), dataPart({ model: "gpt" })]] });
    expect(decodeReply(replyContent(reply))).toMatchObject({ type: "exec" });
  });

  test("the status message alone, an artifact alone, or a direct message", () => {
    expect(decodeReply(replyContent(taskReply({ status: [textPart(JSON.stringify(exec))] })))).toMatchObject({
      type: "exec",
    });
    expect(decodeReply(replyContent(taskReply({ artifacts: [[textPart(JSON.stringify(exec))]] })))).toMatchObject({
      type: "exec",
    });
    expect(decodeReply(replyContent(messageReply([textPart(JSON.stringify(exec))])))).toMatchObject({ type: "exec" });
  });

  test("several TextParts of one source are joined before parsing", () => {
    const reply = taskReply({ artifacts: [[textPart('{"kind":"exec_request",'), textPart('"command":"ls"}')]] });
    expect(decodeReply(replyContent(reply))).toMatchObject({ type: "exec", command: "ls" });
  });
});

describe("replyContent", () => {
  test("state, ids and self-reported usage", () => {
    const usage = { prompt_tokens: 10, completion_tokens: 5, total_tokens: 15 };
    const content = replyContent(
      taskReply({
        state: TaskState.TASK_STATE_INPUT_REQUIRED,
        id: "t-9",
        contextId: "c-9",
        artifacts: [[textPart("x")]],
        artifactMetadata: { usage },
      }),
    );
    expect(content).toMatchObject({ state: "input-required", taskId: "t-9", contextId: "c-9", usage });
  });

  test("malformed usage is dropped", () => {
    const content = replyContent(taskReply({ artifacts: [[textPart("x")]], artifactMetadata: { usage: { a: 1 } } }));
    expect(content.usage).toBeUndefined();
  });
});

describe("parseJsonLoose", () => {
  test("objects and arrays only", () => {
    expect(parseJsonLoose(' {"a":1} ')).toEqual({ a: 1 });
    expect(parseJsonLoose("[1]")).toEqual([1]);
    expect(parseJsonLoose('"s"')).toBeUndefined();
    expect(parseJsonLoose("{nope")).toBeUndefined();
  });
});
