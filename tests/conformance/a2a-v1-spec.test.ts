/**
 * A2A 1.0 conformance on both bindings (JSON-RPC and HTTP+JSON), written from
 * the 1.0 spec text and the requests the A2A TCK sends: each test sends the
 * exact request and asserts the spec's answer, with the section cited. Both
 * agents run over real HTTP on 127.0.0.1:0.
 */
import { afterAll, beforeAll, describe, expect, test } from "vitest";
import { message, post, rpc, startGreenTarget, startPurpleTarget, type AgentTarget } from "./agents.js";

const starters: Record<AgentTarget["name"], () => Promise<AgentTarget>> = {
  green: startGreenTarget,
  purple: startPurpleTarget,
};

const V1 = { "A2A-Version": "1.0" };
const PROBLEM_JSON = /^application\/problem\+json/;

/** `path` under the agent's base URL (`new URL("message:send", base)` would read `message:` as a scheme). */
function at(base: string, path: string): string {
  return `${base.replace(/\/+$/, "")}/${path}`;
}

interface Problem {
  type: string;
  title: string;
  status: number;
  detail: string;
}

/** A REST call; returns status, headers and the parsed body. */
async function rest(
  url: string,
  method: "GET" | "POST",
  body?: unknown,
  headers: Record<string, string> = {},
): Promise<{ status: number; headers: Headers; body: Record<string, unknown> }> {
  const res = await fetch(url, {
    method,
    headers: { ...(body === undefined ? {} : { "content-type": "application/json" }), ...V1, ...headers },
    ...(body === undefined ? {} : { body: typeof body === "string" ? body : JSON.stringify(body) }),
  });
  return { status: res.status, headers: res.headers, body: (await res.json()) as Record<string, unknown> };
}

/** A 1.0 user message (JSON form). */
function v1Message(text: string, extra: Record<string, unknown> = {}): Record<string, unknown> {
  return { messageId: `v1-${Math.random().toString(36).slice(2)}`, role: "ROLE_USER", parts: [{ text }], ...extra };
}

describe.each(["green", "purple"] as const)("%s agent: A2A 1.0 conformance on both bindings", (name) => {
  let agent: AgentTarget;
  beforeAll(async () => {
    agent = await starters[name]();
  });
  afterAll(async () => {
    await agent?.close();
  });

  /** A task run to completion over 1.0 JSON-RPC (blocking SendMessage). */
  async function completedTask(): Promise<{ id: string; contextId: string }> {
    const r = await rpc(agent.url, "SendMessage", { message: v1Message(agent.requestText) }, "1.0");
    const task = (r.body.result as { task: { id: string; contextId: string; status: { state: string } } }).task;
    expect(task.status.state).toBe("TASK_STATE_COMPLETED");
    return task;
  }

  describe("JSON-RPC envelope (§9.5: -32600 InvalidRequestError, the JSON sent is not a valid Request object)", () => {
    const invalid: Array<[string, Record<string, unknown>]> = [
      ['"jsonrpc": "aaa"', { jsonrpc: "aaa", method: "SendMessage", params: {} }],
      ["no method", { jsonrpc: "2.0", params: {} }],
      ['"jsonrpc": "1.0"', { jsonrpc: "1.0", id: 1, method: "SendMessage", params: {} }],
      ["an object id", { jsonrpc: "2.0", method: "SendMessage", params: {}, id: { bad: "type" } }],
      ["params null", { jsonrpc: "2.0", id: 2, method: "GetTask", params: null }],
    ];
    test.each(invalid)("%s is -32600 with A2A-Version 1.0, without the header, and with 0.3", async (_what, body) => {
      for (const headers of [V1, {}, { "A2A-Version": "0.3" }]) {
        const r = await post(agent.url, body, headers);
        expect(r.body.error?.code, `${JSON.stringify(body)} ${JSON.stringify(headers)}`).toBe(-32600);
        expect(r.body.jsonrpc).toBe("2.0");
        // JSON-RPC 2.0 §5: the id is null when it could not be read from the request.
        expect(r.body.id).toBe(typeof body["id"] === "number" ? body["id"] : null);
      }
    });

    test("a valid envelope with bad params is still -32602; a non-JSON body still -32005; a bad method -32601", async () => {
      const bad = await post(agent.url, { jsonrpc: "2.0", method: "SendMessage", id: "4", params: { "": "x" } }, V1);
      expect(bad.body.error?.code).toBe(-32602);
      expect(bad.body.id).toBe("4");
      const res = await fetch(agent.url, {
        method: "POST",
        headers: { "content-type": "text/plain", ...V1 },
        body: JSON.stringify({ jsonrpc: "2.0", id: 1, method: "GetTask", params: { id: "x" } }),
      });
      expect(((await res.json()) as { error?: { code: number } }).error?.code).toBe(-32005);
      expect((await rpc(agent.url, "SendMessageXXX", {})).body.error?.code).toBe(-32601);
    });
  });

  describe("calls without the header (§3.6): a 1.0 method name is a 1.0 call, a 0.3 one stays 0.3", () => {
    test("SendMessage and GetTask without A2A-Version are served and answered as 1.0", async () => {
      const sent = await rpc(agent.url, "SendMessage", { message: v1Message(agent.requestText) });
      expect(sent.headers.get("a2a-version")).toBe("1.0");
      const task = (sent.body.result as { task: { id: string; status: { state: string } } }).task;
      expect(task.status.state).toBe("TASK_STATE_COMPLETED");
      const got = await rpc(agent.url, "GetTask", { id: task.id });
      expect(got.headers.get("a2a-version")).toBe("1.0");
      expect((got.body.result as { id: string }).id).toBe(task.id);
      expect((await rpc(agent.url, "GetTask", { id: "no-such-task" })).body.error?.code).toBe(-32001);
    });

    test("SendStreamingMessage without A2A-Version streams 1.0 events", async () => {
      const res = await fetch(agent.url, {
        method: "POST",
        headers: { "content-type": "application/json", accept: "text/event-stream" },
        body: JSON.stringify({
          jsonrpc: "2.0",
          id: 7,
          method: "SendStreamingMessage",
          params: { message: v1Message(agent.requestText) },
        }),
      });
      expect(res.headers.get("content-type")).toMatch(/^text\/event-stream/);
      const text = await res.text();
      const results = text
        .split(/\r?\n\r?\n/)
        .map((b) => b.replace(/^data:\s?/m, "").trim())
        .filter((d) => d.length > 0)
        .map((d) => (JSON.parse(d) as { result: Record<string, unknown> }).result);
      expect(Object.keys(results[0] ?? {})).toEqual(["task"]);
      const last = results.at(-1)?.["statusUpdate"] as { status: { state: string } } | undefined;
      expect(last?.status.state).toBe("TASK_STATE_COMPLETED");
    });

    test("the A2A-Version request parameter stands for the header (1.0.0 §3.6.1)", async () => {
      const asV1 = await post(`${agent.url}?A2A-Version=1.0`, {
        jsonrpc: "2.0",
        id: 9,
        method: "message/send",
        params: { message: message(agent.requestText) },
      });
      expect(asV1.headers.get("a2a-version")).toBe("1.0");
      expect(asV1.body.error?.code).toBe(-32601);
      const card = (await (await fetch(`${agent.url}.well-known/agent-card.json?A2A-Version=1.0`)).json()) as Record<
        string,
        unknown
      >;
      expect(card["supportedInterfaces"]).toBeDefined();
      expect(card["preferredTransport"]).toBeUndefined();
    });

    test("message/send and tasks/get without the header still speak 0.3", async () => {
      const sent = await rpc(agent.url, "message/send", { message: message(agent.requestText) });
      expect(sent.headers.get("a2a-version")).toBe("0.3.0");
      const task = sent.body.result as { kind: string; id: string; status: { state: string } };
      expect(task.kind).toBe("task");
      expect(task.status.state).toBe("completed");
      expect(((await rpc(agent.url, "tasks/get", { id: task.id })).body.result as { kind: string }).kind).toBe("task");
    });
  });

  describe("ListTasks validates its parameters on both bindings (§3.3.2 MUST validate; §5.1 same error handling)", () => {
    test("historyLength -1 is -32602 over JSON-RPC and 400 over REST", async () => {
      await completedTask();
      const r = await rpc(agent.url, "ListTasks", { historyLength: -1 }, "1.0");
      expect(r.body.error?.code).toBe(-32602);
      expect(r.body.result).toBeUndefined();
      const h = await rest(at(agent.url, "tasks?historyLength=-1"), "GET");
      expect(h.status).toBe(400);
      expect(h.headers.get("content-type")).toMatch(PROBLEM_JSON);
    });

    test('statusTimestampAfter "-1" is -32602 over JSON-RPC and 400 over REST (§5.6.1 ISO 8601)', async () => {
      const r = await rpc(agent.url, "ListTasks", { statusTimestampAfter: "-1" }, "1.0");
      expect(r.body.error?.code).toBe(-32602);
      expect(r.body.error?.message).toMatch(/statusTimestampAfter/);
      const h = await rest(at(agent.url, "tasks?statusTimestampAfter=-1"), "GET");
      expect(h.status).toBe(400);
      expect((h.body as unknown as Problem).detail).toMatch(/statusTimestampAfter/);
      for (const bad of ["2025-02-30T00:00:00Z", "yesterday", "2025-10-28"]) {
        const b = await rpc(agent.url, "ListTasks", { statusTimestampAfter: bad }, "1.0");
        expect(b.body.error?.code, bad).toBe(-32602);
      }
    });

    test("a valid timestamp (Z or +00:00) filters: tasks updated at or after it", async () => {
      const before = new Date(Date.now() - 1000).toISOString();
      const task = await completedTask();
      for (const after of [before, before.replace("Z", "+00:00")]) {
        const r = await rpc(agent.url, "ListTasks", { statusTimestampAfter: after }, "1.0");
        const ids = (r.body.result as { tasks: Array<{ id: string }> }).tasks.map((t) => t.id);
        expect(ids, after).toContain(task.id);
        const h = await rest(at(agent.url, `tasks?statusTimestampAfter=${encodeURIComponent(after)}`), "GET");
        expect(h.status).toBe(200);
        expect((h.body["tasks"] as Array<{ id: string }>).map((t) => t.id)).toContain(task.id);
      }
      const future = new Date(Date.now() + 3_600_000).toISOString();
      const none = await rpc(agent.url, "ListTasks", { statusTimestampAfter: future }, "1.0");
      expect((none.body.result as { tasks: unknown[] }).tasks ?? []).toEqual([]);
    });
  });

  describe("a message without role is refused (1.0 proto: Message.role REQUIRED)", () => {
    test("SendMessage is -32602, POST /message:send is 400, message/send (0.3) is -32602", async () => {
      const { role: _drop, ...noRole } = v1Message(agent.requestText);
      const r = await rpc(agent.url, "SendMessage", { message: noRole }, "1.0");
      expect(r.body.error?.code).toBe(-32602);
      expect(r.body.error?.message).toMatch(/message\.role is required/);
      const streamed = await rpc(agent.url, "SendStreamingMessage", { message: noRole }, "1.0");
      expect(streamed.body.error?.code).toBe(-32602);
      const h = await rest(at(agent.url, "message:send"), "POST", { message: noRole });
      expect(h.status).toBe(400);
      expect((h.body as unknown as Problem).detail).toMatch(/message\.role is required/);
      const { role: _drop03, ...noRole03 } = message(agent.requestText);
      expect((await rpc(agent.url, "message/send", { message: noRole03 })).body.error?.code).toBe(-32602);
      // The TCK's "ROLE_UNSPECIFIED" is no role either.
      const unspecified = await rpc(
        agent.url,
        "SendMessage",
        { message: { ...noRole, role: "ROLE_UNSPECIFIED" } },
        "1.0",
      );
      expect(unspecified.body.error?.code).toBe(-32602);
    });
  });

  describe("REST errors are RFC 9457 problem details with §5.4's status and type (§11.6)", () => {
    test("cancelling a finished task is 400 task-not-cancelable (1.0.1's §5.4; the RC had 409)", async () => {
      const task = await completedTask();
      const h = await rest(at(agent.url, `tasks/${task.id}:cancel`), "POST", {});
      expect(h.status).toBe(400);
      expect(h.headers.get("content-type")).toMatch(PROBLEM_JSON);
      expect(h.body).toMatchObject({
        type: "https://a2a-protocol.org/errors/task-not-cancelable",
        title: "Task Not Cancelable",
        status: 400,
      });
      expect(typeof h.body["detail"]).toBe("string");
      // JSON-RPC keeps -32002 for the same request (§5.4).
      expect((await rpc(agent.url, "CancelTask", { id: task.id }, "1.0")).body.error?.code).toBe(-32002);
    });

    test("an unknown task is 404 task-not-found (GET and cancel)", async () => {
      for (const [path, method] of [
        ["tasks/no-such-task", "GET"],
        ["tasks/no-such-task:cancel", "POST"],
      ] as const) {
        const h = await rest(at(agent.url, path), method, method === "POST" ? {} : undefined);
        expect(h.status, path).toBe(404);
        expect(h.headers.get("content-type")).toMatch(PROBLEM_JSON);
        expect(h.body).toMatchObject({ type: "https://a2a-protocol.org/errors/task-not-found", status: 404 });
      }
    });

    test("an unsupported media type is 400 content-type-not-supported (1.0.1's §5.4; the RC had 415)", async () => {
      const h = await rest(at(agent.url, "message:send"), "POST", JSON.stringify({ message: v1Message("x") }), {
        "content-type": "text/plain",
      });
      expect(h.status).toBe(400);
      expect(h.body).toMatchObject({ type: "https://a2a-protocol.org/errors/content-type-not-supported", status: 400 });
    });

    test("a validation error is 400 about:blank with the problem in detail; the status object stays as `error`", async () => {
      const h = await rest(at(agent.url, "message:send"), "POST", { message: v1Message("x", { parts: [] }) });
      expect(h.status).toBe(400);
      expect(h.headers.get("content-type")).toMatch(PROBLEM_JSON);
      expect(h.body).toMatchObject({ type: "about:blank", title: "Bad Request", status: 400 });
      expect((h.body as unknown as Problem).detail).toMatch(/message.parts must contain at least one part/);
      expect(h.body["error"]).toMatchObject({ code: 400, status: "INVALID_ARGUMENT" });
    });

    test("the 0.3 REST paths keep their own error shape", async () => {
      const res = await fetch(at(agent.url, "v1/tasks/no-such-task"));
      expect(res.status).toBe(404);
      expect(res.headers.get("content-type")).not.toMatch(PROBLEM_JSON);
    });
  });
});
