import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import express, { type NextFunction, type Request, type Response } from "express";
import {
  TaskState,
  type AgentCard,
  type GetTaskRequest,
  type Message,
  type SendMessageRequest,
  type StreamResponse,
  type Task,
} from "@a2a-js/sdk";
import { TaskNotFoundError } from "@a2a-js/sdk/errors";
import { DefaultRequestHandler, InMemoryTaskStore, type ServerCallContext } from "@a2a-js/sdk/server";
import { UserBuilder, jsonRpcHandler } from "@a2a-js/sdk/server/express";
import { serveApp, type ServedApp } from "../../../src/a2a/server/serve.js";
import { unaryAnswer, unaryJsonRpc } from "../../../src/a2a/server/jsonrpc-unary.js";
import { silentLogger } from "../../../src/util/logger.js";
import { agentMessage, textPart } from "../../../src/a2a/shared/parts.js";
import { testCard } from "../helpers.js";

const EXTENSION = "https://example.com/ext/v1";

/** A task whose every field is fixed, so both paths can be compared byte for byte. */
function fixedTask(id: string): Task {
  return {
    id,
    contextId: "ctx-1",
    status: {
      state: TaskState.TASK_STATE_COMPLETED,
      message: { ...agentMessage([textPart("done")], { taskId: id, contextId: "ctx-1" }), messageId: "s1" },
      timestamp: "2026-01-01T00:00:00.000Z",
    },
    artifacts: [],
    history: [],
    metadata: { k: 1 },
  };
}

/**
 * The SDK's own request handler, with the methods these tests call answering fixed values (or the errors
 * the SDK's would), so the two transports are compared on the same behaviour.
 */
class FixedHandler extends DefaultRequestHandler {
  override async sendMessage(params: SendMessageRequest, context: ServerCallContext): Promise<Message | Task> {
    const text = params.message?.parts[0]?.content;
    const word = text?.$case === "text" ? text.value : "";
    if (word === "crash") throw new Error("executor broke");
    if (word === "extension") context.addActivatedExtension(EXTENSION);
    if (word === "message")
      return { ...agentMessage([textPart("hi")], { taskId: "", contextId: "ctx-1" }), messageId: "m-fixed" };
    return fixedTask("task-1");
  }

  override async getTask(params: GetTaskRequest): Promise<Task> {
    if (params.id !== "task-1") throw new TaskNotFoundError(`Task not found: ${params.id}`);
    const task = fixedTask("task-1");
    task.history = [
      { ...agentMessage([textPart("one")], { taskId: "task-1", contextId: "ctx-1" }), messageId: "h1" },
      { ...agentMessage([textPart("two")], { taskId: "task-1", contextId: "ctx-1" }), messageId: "h2" },
    ];
    if (params.historyLength !== undefined) task.history = task.history.slice(-params.historyLength);
    return task;
  }

  override async *sendMessageStream(): AsyncGenerator<StreamResponse, void, undefined> {
    yield { payload: { $case: "task", value: fixedTask("task-s") } };
  }
}

interface Served {
  served: ServedApp;
  url: string;
  /** Requests that reached the SDK's Express handler. */
  sdkCalls: number;
}

/** An app as express-app.ts builds the JSON-RPC route: body parsed, then (optionally) the unary path, then the SDK. */
async function serve(withUnary: boolean): Promise<Served> {
  const state = { sdkCalls: 0 };
  const served = await serveApp("127.0.0.1", 0, (port) => {
    const base = testCard(port);
    const card: AgentCard = { ...base, capabilities: { extensions: [], ...base.capabilities, streaming: true } };
    const requestHandler = new FixedHandler(card, new InMemoryTaskStore(), {
      execute: async () => {},
      cancelTask: async () => {},
    });
    const userBuilder = UserBuilder.noAuthentication;
    const app = express();
    app.post(
      "/",
      express.json(),
      ...(withUnary ? [unaryJsonRpc(unaryAnswer({ requestHandler, userBuilder, logger: silentLogger() }))] : []),
      (_req: Request, _res: Response, next: NextFunction) => {
        state.sdkCalls++;
        next();
      },
      jsonRpcHandler({ requestHandler, userBuilder, legacyCompat: { enabled: true } }),
    );
    return app;
  });
  return Object.assign(state, { served, url: `http://127.0.0.1:${served.port}/` });
}

interface Call {
  name: string;
  body: unknown;
  headers?: Record<string, string>;
  /** Whether the unary path answers it (else the SDK's handler). */
  unary: boolean;
}

const send = (text: string, extra: Record<string, unknown> = {}) => ({
  jsonrpc: "2.0",
  id: 7,
  method: "message/send",
  params: { message: { kind: "message", role: "user", messageId: "u1", parts: [{ kind: "text", text }] }, ...extra },
});
const sendV1 = (text: string) => ({
  jsonrpc: "2.0",
  id: "a",
  method: "SendMessage",
  params: { message: { role: "ROLE_USER", messageId: "u1", parts: [{ text }] } },
});
const V1 = { "A2A-Version": "1.0" };

const CALLS: Call[] = [
  { name: "0.3 message/send → task", body: send("ping"), unary: true },
  { name: "0.3 message/send → message", body: send("message"), unary: true },
  { name: "0.3 message/send, historyLength", body: send("ping", { configuration: { historyLength: 1 } }), unary: true },
  {
    name: "0.3 tasks/get",
    body: { jsonrpc: "2.0", id: 1, method: "tasks/get", params: { id: "task-1" } },
    unary: true,
  },
  {
    name: "0.3 tasks/get historyLength 1",
    body: { jsonrpc: "2.0", id: 1, method: "tasks/get", params: { id: "task-1", historyLength: 1 } },
    unary: true,
  },
  {
    name: "0.3 tasks/get unknown",
    body: { jsonrpc: "2.0", id: 2, method: "tasks/get", params: { id: "x" } },
    unary: true,
  },
  { name: "0.3 unknown method", body: { jsonrpc: "2.0", id: 3, method: "tasks/frobnicate", params: {} }, unary: true },
  { name: "0.3 invalid params", body: { jsonrpc: "2.0", id: 4, method: "message/send", params: {} }, unary: true },
  { name: "0.3 executor error", body: send("crash"), unary: true },
  { name: "id 0 in an error answer", body: { ...send("crash"), id: 0 }, unary: true },
  { name: "0.3 activated extension", body: send("extension"), headers: { "X-A2A-Extensions": EXTENSION }, unary: true },
  { name: "1.0 SendMessage", body: sendV1("ping"), headers: V1, unary: true },
  {
    name: "1.0 SendMessage extension",
    body: sendV1("extension"),
    headers: { ...V1, "A2A-Extensions": EXTENSION },
    unary: true,
  },
  {
    name: "1.0 GetTask",
    body: { jsonrpc: "2.0", id: 5, method: "GetTask", params: { id: "task-1" } },
    headers: V1,
    unary: true,
  },
  {
    name: "1.0 GetTask unknown",
    body: { jsonrpc: "2.0", id: 5, method: "GetTask", params: { id: "y" } },
    headers: V1,
    unary: true,
  },
  { name: "1.0 executor error", body: sendV1("crash"), headers: V1, unary: true },
  { name: "unsupported version", body: send("ping"), headers: { "A2A-Version": "7.0" }, unary: true },
  { name: "0.3 method under 1.0", body: send("ping"), headers: V1, unary: true },
  { name: "0.3 message/stream (SSE)", body: { ...send("ping"), method: "message/stream" }, unary: false },
  {
    name: "1.0 SendStreamingMessage (SSE)",
    body: { ...sendV1("ping"), method: "SendStreamingMessage" },
    headers: V1,
    unary: false,
  },
];

async function call(base: string, c: Call) {
  const r = await fetch(base, {
    method: "POST",
    headers: { "content-type": "application/json", ...c.headers },
    body: JSON.stringify(c.body),
  });
  return {
    status: r.status,
    contentType: r.headers.get("content-type"),
    extensions: r.headers.get("a2a-extensions") ?? r.headers.get("x-a2a-extensions"),
    body: await r.text(),
  };
}

describe("unaryJsonRpc (the SDK's transport handlers without its Express router)", () => {
  let sdk: Served;
  let ours: Served;
  beforeAll(async () => {
    vi.spyOn(console, "error").mockImplementation(() => {}); // the SDK's handler logs every error it maps
    sdk = await serve(false);
    ours = await serve(true);
  });
  afterAll(async () => {
    await sdk.served.close();
    await ours.served.close();
    vi.restoreAllMocks();
  });

  it.each(CALLS)("answers $name exactly as the SDK's handler", async (c) => {
    const before = ours.sdkCalls;
    const expected = await call(sdk.url, c);
    const got = await call(ours.url, c);
    expect(got).toEqual(expected);
    // The answer came from the path the call belongs to.
    expect(ours.sdkCalls - before).toBe(c.unary ? 0 : 1);
  });

  it("covers what the comparison is meant to: success, errors of each kind, extensions, both wires, streams", async () => {
    const codes = new Set<number>();
    const bodies: string[] = [];
    for (const c of CALLS) {
      const r = await call(ours.url, c);
      bodies.push(r.body);
      if (r.contentType?.startsWith("application/json")) {
        const code = (JSON.parse(r.body) as { error?: { code: number } }).error?.code;
        if (code !== undefined) codes.add(code);
      }
    }
    // Task not found (0.3 and 1.0 codes), method not found, invalid params, internal error, version not supported.
    expect(codes.size).toBeGreaterThanOrEqual(5);
    expect(codes).toContain(-32601);
    expect(codes).toContain(-32602);
    expect(codes).toContain(-32603);
    expect(bodies.some((b) => b.includes('"kind":"task"'))).toBe(true);
    expect(bodies.some((b) => b.includes('"kind":"message"'))).toBe(true);
    expect(bodies.some((b) => b.startsWith("data:"))).toBe(true);
    expect(
      (
        await call(
          ours.url,
          CALLS.find((c) => c.name === "1.0 SendMessage extension")!,
        )
      ).extensions,
    ).toBe(EXTENSION);
  });

  it("leaves a request without a parsed body to the SDK (its content-type guard answers)", async () => {
    const before = ours.sdkCalls;
    const r = await fetch(ours.url, { method: "POST", headers: { "content-type": "text/plain" }, body: "{}" });
    const expected = await fetch(sdk.url, { method: "POST", headers: { "content-type": "text/plain" }, body: "{}" });
    expect(await r.text()).toBe(await expected.text());
    expect(ours.sdkCalls - before).toBe(1);
  });
});
