/**
 * A2A v0.3.0 conformance, JSON-RPC binding, written from the spec text: one
 * test per MUST checked, named after it, with the section cited. Both agents
 * run over real HTTP on 127.0.0.1:0. The last block checks the basics of the
 * 1.0 wire (`A2A-Version: 1.0`), which both agents serve on the same endpoint.
 */
import { afterAll, beforeAll, describe, expect, test } from "vitest";
import {
  message,
  post,
  rpc,
  sse,
  startGreenTarget,
  startPurpleTarget,
  waitTerminal,
  type AgentTarget,
} from "./agents.js";

const starters: Record<AgentTarget["name"], () => Promise<AgentTarget>> = {
  green: startGreenTarget,
  purple: startPurpleTarget,
};

describe.each(["green", "purple"] as const)("%s agent: A2A v0.3.0 JSON-RPC conformance", (name) => {
  let agent: AgentTarget;
  beforeAll(async () => {
    agent = await starters[name]();
  });
  afterAll(async () => {
    await agent?.close();
  });

  /** A task run to completion (blocking message/send). */
  async function completedTask(): Promise<{ id: string; contextId: string }> {
    const r = await rpc(agent.url, "message/send", { message: message(agent.requestText) });
    const task = r.body.result as { id: string; contextId: string; status: { state: string } };
    expect(task.status.state, JSON.stringify(r.body).slice(0, 400)).toMatch(/^(completed|rejected|failed)$/);
    return task;
  }

  /** A task still running (non-blocking message/send). */
  async function runningTask(): Promise<string> {
    const r = await rpc(agent.url, "message/send", {
      message: message(agent.requestText),
      configuration: { blocking: false },
    });
    const task = r.body.result as { id: string; status: { state: string } };
    expect(task.status.state).toMatch(/^(submitted|working)$/);
    return task.id;
  }

  // §5.3 Agent Card discovery: "/.well-known/agent-card.json"; §5.5 AgentCard required fields.
  test("the agent card is served at /.well-known/agent-card.json with every required field", async () => {
    const res = await fetch(new URL(".well-known/agent-card.json", agent.url));
    expect(res.status).toBe(200);
    const card = (await res.json()) as Record<string, unknown>;
    for (const key of [
      "protocolVersion",
      "name",
      "description",
      "url",
      "version",
      "capabilities",
      "defaultInputModes",
      "defaultOutputModes",
      "skills",
      "preferredTransport",
    ]) {
      expect(card, key).toHaveProperty(key);
    }
    expect(card["preferredTransport"]).toBe("JSONRPC");
    expect((card["capabilities"] as Record<string, unknown>)["streaming"]).toBe(true);
  });

  // §6.11 / JSON-RPC 2.0 §5: the response MUST carry "jsonrpc": "2.0" and the request's id.
  test("responses carry jsonrpc 2.0 and echo the request id", async () => {
    const r = await post(agent.url, {
      jsonrpc: "2.0",
      id: "abc-123",
      method: "tasks/get",
      params: { id: "no-such-task" },
    });
    expect(r.body.jsonrpc).toBe("2.0");
    expect(r.body.id).toBe("abc-123");
  });

  // §8.1 Standard JSON-RPC errors: -32700 Parse error, "Invalid JSON payload".
  test("invalid JSON is answered with -32700", async () => {
    const r = await post(agent.url, '{"jsonrpc": "2.0", "id": 1, "method": ');
    expect(r.body.error?.code).toBe(-32700);
    expect(r.body.id).toBeNull();
  });

  // §8.1: -32600 Invalid Request, "Request payload validation error" (here: no "jsonrpc" member).
  test("a request that is not a valid JSON-RPC request object is answered with -32600", async () => {
    expect((await post(agent.url, { id: 1, method: "tasks/get", params: { id: "x" } })).body.error?.code).toBe(-32600);
    expect(
      (await post(agent.url, { jsonrpc: "1.0", id: 1, method: "tasks/get", params: { id: "x" } })).body.error?.code,
    ).toBe(-32600);
  });

  // §8.1: -32601 Method not found.
  test("an unknown method is answered with -32601", async () => {
    expect((await rpc(agent.url, "tasks/frobnicate", {})).body.error?.code).toBe(-32601);
  });

  // §8.1: -32602 Invalid params; §6.4 Message.parts is required content ("at least one part").
  test("a message with empty parts is answered with -32602", async () => {
    expect((await rpc(agent.url, "message/send", { message: message("x", { parts: [] }) })).body.error?.code).toBe(
      -32602,
    );
    const streamed = await rpc(agent.url, "message/stream", { message: message("x", { parts: [] }) });
    expect(streamed.body.error?.code).toBe(-32602);
  });

  // §8.1 / §7.3 TaskQueryParams.historyLength: a number of messages, so never negative.
  test("a negative historyLength is answered with -32602 (tasks/get and message/send)", async () => {
    const task = await completedTask();
    expect((await rpc(agent.url, "tasks/get", { id: task.id, historyLength: -1 })).body.error?.code).toBe(-32602);
    const send = await rpc(agent.url, "message/send", {
      message: message(agent.requestText),
      configuration: { historyLength: -5 },
    });
    expect(send.body.error?.code).toBe(-32602);
  });

  // §6.4 Message: messageId is required.
  test("a message without messageId is answered with -32602", async () => {
    const { messageId: _drop, ...noId } = message("x");
    expect((await rpc(agent.url, "message/send", { message: noId })).body.error?.code).toBe(-32602);
  });

  // §8.2 A2A errors: -32001 TaskNotFoundError for tasks/get and tasks/cancel.
  test("an unknown task id is answered with -32001 (tasks/get, tasks/cancel)", async () => {
    expect((await rpc(agent.url, "tasks/get", { id: "no-such-task" })).body.error?.code).toBe(-32001);
    expect((await rpc(agent.url, "tasks/cancel", { id: "no-such-task" })).body.error?.code).toBe(-32001);
  });

  // §7.4 tasks/cancel + §8.2: -32002 TaskNotCancelableError for a task in a terminal state.
  test("cancelling a completed task is answered with -32002", async () => {
    const task = await completedTask();
    expect((await rpc(agent.url, "tasks/cancel", { id: task.id })).body.error?.code).toBe(-32002);
  });

  // §6.3 TaskState: terminal tasks cannot be restarted; §8.2 -32004 UnsupportedOperationError.
  test("a message to a task in a terminal state is answered with -32004", async () => {
    const task = await completedTask();
    const r = await rpc(agent.url, "message/send", {
      message: message(agent.requestText, { taskId: task.id, contextId: task.contextId }),
    });
    expect(r.body.error?.code).toBe(-32004);
  });

  // §8.2: -32005 ContentTypeNotSupportedError (the binding's media type is application/json).
  test("a request body that is not application/json is answered with -32005", async () => {
    const res = await fetch(agent.url, {
      method: "POST",
      headers: { "content-type": "text/plain" },
      body: JSON.stringify({ jsonrpc: "2.0", id: 1, method: "tasks/get", params: { id: "x" } }),
    });
    expect(((await res.json()) as RpcReply)["error"]?.code).toBe(-32005);
  });

  // §7.3 tasks/get: historyLength = "number of recent messages to be retrieved".
  test("tasks/get honours historyLength: the N most recent messages", async () => {
    const task = await completedTask();
    const full = (await rpc(agent.url, "tasks/get", { id: task.id })).body.result as {
      history?: Array<{ messageId: string }>;
    };
    const history = full.history ?? [];
    expect(history.length).toBeGreaterThanOrEqual(2);
    const one = (await rpc(agent.url, "tasks/get", { id: task.id, historyLength: 1 })).body.result as {
      history?: Array<{ messageId: string }>;
    };
    expect(one.history?.map((m) => m.messageId)).toEqual([history.at(-1)?.messageId]);
    const two = (await rpc(agent.url, "tasks/get", { id: task.id, historyLength: 2 })).body.result as {
      history?: Array<{ messageId: string }>;
    };
    expect(two.history?.map((m) => m.messageId)).toEqual(history.slice(-2).map((m) => m.messageId));
  });

  // §7.2 message/stream: Content-Type text/event-stream; each event a JSON-RPC response with the
  // request's id; the stream ends with a TaskStatusUpdateEvent whose final is true.
  test("message/stream is SSE of JSON-RPC responses and ends with final: true", async () => {
    const { contentType, events, id } = await sse(agent.url, "message/stream", { message: message(agent.requestText) });
    expect(contentType).toMatch(/^text\/event-stream/);
    expect(events.length).toBeGreaterThanOrEqual(2);
    for (const e of events) {
      expect(e["jsonrpc"]).toBe("2.0");
      expect(e["id"]).toBe(id);
    }
    const results = events.map((e) => e["result"] as Record<string, unknown>);
    expect(results[0]?.["kind"]).toBe("task");
    const last = results.at(-1)!;
    expect(last["kind"]).toBe("status-update");
    expect(last["final"]).toBe(true);
    expect((last["status"] as { state: string }).state).toBe("completed");
    expect(results.slice(0, -1).filter((r) => r["final"] === true)).toEqual([]);
  });

  // §7.9 tasks/resubscribe: reconnects to the stream of a running task and delivers the rest.
  test("tasks/resubscribe on a running task delivers the rest, ending with final: true", async () => {
    const taskId = await runningTask();
    const { events } = await sse(agent.url, "tasks/resubscribe", { id: taskId });
    const results = events.map((e) => e["result"] as Record<string, unknown>);
    const last = results.at(-1)!;
    expect(last["kind"]).toBe("status-update");
    expect(last["final"]).toBe(true);
    expect((last["status"] as { state: string }).state).toBe("completed");
    const task = await waitTerminal(agent.url, taskId);
    expect((task["status"] as { state: string }).state).toBe("completed");
  });

  // §7.9 + §8.2: resubscribing to a task that does not exist is -32001 (sent as the
  // stream's one JSON-RPC error event: the SDK always answers resubscribe with SSE).
  test("tasks/resubscribe to an unknown task is answered with -32001", async () => {
    const { events } = await sse(agent.url, "tasks/resubscribe", { id: "no-such-task" });
    expect(events).toHaveLength(1);
    expect((events[0]?.["error"] as { code: number }).code).toBe(-32001);
  });

  // A2A 1.0 (JSON-RPC binding): version negotiated by the A2A-Version header; PascalCase methods.
  describe("1.0 wire basics", () => {
    test("the card served for A2A-Version 1.0 lists a JSONRPC interface for 1.0", async () => {
      const res = await fetch(new URL(".well-known/agent-card.json", agent.url), { headers: { "A2A-Version": "1.0" } });
      const card = (await res.json()) as {
        supportedInterfaces?: Array<{ protocolBinding: string; protocolVersion: string; url: string }>;
      };
      expect(
        card.supportedInterfaces?.some((i) => i.protocolBinding === "JSONRPC" && i.protocolVersion === "1.0"),
      ).toBe(true);
    });

    test("SendMessage completes a task, GetTask reads it, the response says A2A-Version 1.0", async () => {
      const msg = { messageId: `v1-${Date.now()}`, role: "ROLE_USER", parts: [{ text: agent.requestText }] };
      const r = await rpc(agent.url, "SendMessage", { message: msg }, "1.0");
      expect(r.headers.get("a2a-version")).toBe("1.0");
      const task = (r.body.result as { task: { id: string; status: { state: string } } }).task;
      expect(task.status.state).toBe("TASK_STATE_COMPLETED");
      const got = await rpc(agent.url, "GetTask", { id: task.id, historyLength: 1 }, "1.0");
      expect((got.body.result as { id: string; history: unknown[] }).id).toBe(task.id);
      expect((got.body.result as { history: unknown[] }).history).toHaveLength(1);
    });

    test("1.0 errors: unknown task -32001, empty parts / negative historyLength / no messageId -32602, v0.3 method name -32601", async () => {
      expect((await rpc(agent.url, "GetTask", { id: "no-such-task" }, "1.0")).body.error?.code).toBe(-32001);
      expect((await rpc(agent.url, "GetTask", { id: "no-such-task", historyLength: -1 }, "1.0")).body.error?.code).toBe(
        -32602,
      );
      expect(
        (await rpc(agent.url, "SendMessage", { message: { messageId: "e", role: "ROLE_USER", parts: [] } }, "1.0")).body
          .error?.code,
      ).toBe(-32602);
      expect(
        (await rpc(agent.url, "SendMessage", { message: { role: "ROLE_USER", parts: [{ text: "x" }] } }, "1.0")).body
          .error?.code,
      ).toBe(-32602);
      expect((await rpc(agent.url, "message/send", { message: message("x") }, "1.0")).body.error?.code).toBe(-32601);
    });
  });
});

type RpcReply = { error?: { code: number } };
