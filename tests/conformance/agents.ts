/**
 * The two agents under conformance test, served on 127.0.0.1:0, and raw
 * wire helpers (plain fetch, no SDK client: the tests check the bytes the
 * spec talks about, not what a client library makes of them).
 */
import type { Solver } from "../../src/purple/solver.js";
import { createPurpleApp } from "../../src/purple/app.js";
import { serveOnLoopback } from "../a2a/helpers.js";
import { fixtureRunner, startGreen } from "../green/helpers.js";

export interface AgentTarget {
  name: "green" | "purple";
  url: string;
  /** Text of a valid user message for this agent (green: an assessment request). */
  requestText: string;
  close(): Promise<void>;
}

/** Echo after `delayMs`, so a task stays `working` long enough to resubscribe or cancel. */
export function slowEchoSolver(delayMs: number): Solver {
  return {
    mode: "slow-echo",
    solve: (input, signal) =>
      new Promise((resolve, reject) => {
        const t = setTimeout(() => resolve({ text: input.text }), delayMs);
        signal.addEventListener("abort", () => {
          clearTimeout(t);
          reject(new Error("aborted"));
        });
      }),
  };
}

/** Green agent with a runner fixture taking ~0.6 s (two items, 300 ms apart). */
export async function startGreenTarget(): Promise<AgentTarget> {
  const g = await startGreen(fixtureRunner("slow.mjs"), { maxConcurrent: 4 });
  return {
    name: "green",
    url: g.url,
    requestText: JSON.stringify({ participants: { agent: "http://127.0.0.1:9/" }, config: { benchmark: "humaneval" } }),
    close: () => g.close(),
  };
}

/** Purple agent whose solver answers after 600 ms. */
export async function startPurpleTarget(): Promise<AgentTarget> {
  const served = await serveOnLoopback((card) => createPurpleApp({ card, solver: slowEchoSolver(600) }));
  return { name: "purple", url: served.url, requestText: "def add(a, b):", close: () => served.close() };
}

export interface RpcReply {
  status: number;
  headers: Headers;
  body: { jsonrpc?: string; id?: unknown; result?: Record<string, unknown>; error?: { code: number; message: string } };
}

/** POST a raw body (string) or a JSON value to the agent. */
export async function post(url: string, body: unknown, headers: Record<string, string> = {}): Promise<RpcReply> {
  const res = await fetch(url, {
    method: "POST",
    headers: { "content-type": "application/json", ...headers },
    body: typeof body === "string" || body instanceof Uint8Array ? body : JSON.stringify(body),
  });
  const text = await res.text();
  return { status: res.status, headers: res.headers, body: JSON.parse(text) as RpcReply["body"] };
}

let nextId = 1;

/** A JSON-RPC 2.0 call (v0.3 wire unless `version` is given). */
export function rpc(url: string, method: string, params: unknown, version?: string): Promise<RpcReply> {
  return post(url, { jsonrpc: "2.0", id: nextId++, method, params }, version ? { "A2A-Version": version } : {});
}

/** A v0.3 user message. */
export function message(text: string, extra: Record<string, unknown> = {}): Record<string, unknown> {
  return {
    kind: "message",
    role: "user",
    messageId: `m-${nextId++}-${Date.now()}`,
    parts: [{ kind: "text", text }],
    ...extra,
  };
}

/** Read an SSE response to its end; returns each `data:` payload parsed. */
export async function sse(
  url: string,
  method: string,
  params: unknown,
): Promise<{ contentType: string; events: Array<Record<string, unknown>>; id: number }> {
  const id = nextId++;
  const res = await fetch(url, {
    method: "POST",
    headers: { "content-type": "application/json", accept: "text/event-stream" },
    body: JSON.stringify({ jsonrpc: "2.0", id, method, params }),
  });
  const text = await res.text();
  const events = text
    .split(/\r?\n\r?\n/)
    .map((block) =>
      block
        .split(/\r?\n/)
        .filter((l) => l.startsWith("data:"))
        .map((l) => l.slice(5).trimStart())
        .join("\n"),
    )
    .filter((d) => d.length > 0)
    .map((d) => JSON.parse(d) as Record<string, unknown>);
  return { contentType: res.headers.get("content-type") ?? "", events, id };
}

/** Poll tasks/get until the task is in a terminal state; returns the task. */
export async function waitTerminal(url: string, taskId: string, timeoutMs = 50_000): Promise<Record<string, unknown>> {
  const terminal = new Set(["completed", "canceled", "failed", "rejected"]);
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const r = await rpc(url, "tasks/get", { id: taskId });
    const task = r.body.result as { status: { state: string } } | undefined;
    if (task && terminal.has(task.status.state)) return task;
    if (Date.now() > deadline)
      throw new Error(`task ${taskId} not terminal after ${timeoutMs} ms: ${JSON.stringify(r.body).slice(0, 300)}`);
    await new Promise((res) => setTimeout(res, 50));
  }
}
