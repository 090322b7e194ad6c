/**
 * The A2A HTTP+JSON (REST) binding on both agents, through the SDK's REST
 * client transport (1.0, and the 0.3 legacy REST transport) and raw fetch:
 * card, blocking send, SSE stream, get, cancel; the same guards as JSON-RPC
 * (bearer auth, body limit, parameter checks) on the REST routes.
 */
import { afterEach, describe, expect, test, vi } from "vitest";
import http from "node:http";
import { TaskState, type Task } from "@a2a-js/sdk";
import { createA2AClient, type WireVersion } from "../../../src/a2a/client/client.js";
import { textPart, userMessage } from "../../../src/a2a/shared/parts.js";
import { createPurpleApp } from "../../../src/purple/app.js";
import { collect, serveOnLoopback } from "../helpers.js";
import { slowEchoSolver, startGreenTarget, startPurpleTarget, type AgentTarget } from "../../conformance/agents.js";
import { assessment, fixtureRunner, startGreen, type StartedGreen } from "../../green/helpers.js";
import type { ServedApp } from "../../../src/a2a/server/serve.js";

const REST_V1 = { "content-type": "application/json", "A2A-Version": "1.0" };

let target: AgentTarget | undefined;
let green: StartedGreen | undefined;
let served: ServedApp | undefined;
afterEach(async () => {
  await target?.close();
  await green?.close();
  await served?.close();
  target = green = served = undefined;
});

function send(text: string) {
  return { tenant: "", message: userMessage([textPart(text)]), configuration: undefined, metadata: undefined };
}

const starts: Array<[string, () => Promise<AgentTarget>]> = [
  ["green", startGreenTarget],
  ["purple", startPurpleTarget],
];

describe.each(starts)("%s agent: REST binding through the SDK client", (_name, start) => {
  test("the card lists JSONRPC and HTTP+JSON on the base URL for 1.0 and 0.3; JSONRPC stays preferred", async () => {
    target = await start();
    const card1 = (await (
      await fetch(new URL(".well-known/agent-card.json", target.url), { headers: { "A2A-Version": "1.0" } })
    ).json()) as {
      supportedInterfaces: Array<{ url: string; protocolBinding: string; protocolVersion: string }>;
    };
    expect(card1.supportedInterfaces.map((i) => [i.protocolBinding, i.protocolVersion, i.url])).toEqual([
      ["JSONRPC", "1.0", target.url],
      ["HTTP+JSON", "1.0", target.url],
      ["JSONRPC", "0.3", target.url],
      ["HTTP+JSON", "0.3", target.url],
    ]);
    const card03 = (await (await fetch(new URL(".well-known/agent-card.json", target.url))).json()) as {
      url: string;
      preferredTransport: string;
      additionalInterfaces: Array<{ url: string; transport: string }>;
    };
    expect(card03.preferredTransport).toBe("JSONRPC");
    expect(card03.url).toBe(target.url);
    // The 0.3 card names the main interface in url + preferredTransport, the others in additionalInterfaces.
    expect(card03.additionalInterfaces).toEqual([{ url: target.url, transport: "HTTP+JSON" }]);
  });

  test.each<WireVersion>(["1.0", "0.3"])("send (blocking), get, stream and cancel over REST (%s)", async (wire) => {
    target = await start();
    const seen: string[] = [];
    const spy = recordRequests(seen);
    try {
      const client = await createA2AClient(target.url, wire, "HTTP+JSON");
      const task = (await client.sendMessage(send(target.requestText))) as Task;
      expect(task.status?.state).toBe(TaskState.TASK_STATE_COMPLETED);
      const got = await client.getTask({ tenant: "", id: task.id, historyLength: undefined });
      expect(got.id).toBe(task.id);
      expect(got.status?.state).toBe(TaskState.TASK_STATE_COMPLETED);

      const events = await collect(client.sendMessageStream(send(target.requestText)));
      expect(events[0]?.payload?.$case).toBe("task");
      const last = events.at(-1)?.payload;
      expect(last?.$case).toBe("statusUpdate");
      expect(last?.$case === "statusUpdate" ? last.value.status?.state : undefined).toBe(
        TaskState.TASK_STATE_COMPLETED,
      );

      // A task that is still working (the agents take ~0.6 s) is cancelled over REST.
      const stream = client.sendMessageStream(send(target.requestText));
      const first = await stream.next();
      const started = first.value?.payload?.$case === "task" ? first.value.payload.value : undefined;
      expect(started?.id).toBeTruthy();
      const canceled = await client.cancelTask({ tenant: "", id: started!.id, metadata: undefined });
      expect(canceled.status?.state).toBe(TaskState.TASK_STATE_CANCELED);
      await collect(stream);
    } finally {
      spy.mockRestore();
    }
    // Every call went over the REST routes, none over JSON-RPC `POST /`.
    const prefix = wire === "1.0" ? "" : "v1/";
    expect(seen).toContain(`POST ${prefix}message:send`);
    expect(seen).toContain(`POST ${prefix}message:stream`);
    expect(seen.some((s) => new RegExp(`^GET ${prefix}tasks/[^/:]+$`).test(s))).toBe(true);
    expect(seen.some((s) => new RegExp(`^POST ${prefix}tasks/[^/]+:cancel$`).test(s))).toBe(true);
    expect(seen.filter((s) => s === "POST ")).toEqual([]);
  });

  test("raw POST /message:send with A2A-Version 1.0 answers a task in REST JSON", async () => {
    target = await start();
    const res = await fetch(at(target.url, "message:send"), {
      method: "POST",
      headers: REST_V1,
      body: JSON.stringify({
        message: { messageId: `m-${Date.now()}`, role: "ROLE_USER", parts: [{ text: target.requestText }] },
      }),
    });
    expect(res.status).toBe(200);
    expect(res.headers.get("a2a-version")).toBe("1.0");
    // Header-less: the 1.0 REST paths still answer in 1.0 (the 0.3 ones live under /v1/).
    const bare = await fetch(at(target.url, "message:send"), {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({
        message: { messageId: `m-bare-${Date.now()}`, role: "ROLE_USER", parts: [{ text: target.requestText }] },
      }),
    });
    expect(bare.status).toBe(200);
    expect(bare.headers.get("a2a-version")).toBe("1.0");
    expect(((await bare.json()) as { task: { status: { state: string } } }).task.status.state).toBe(
      "TASK_STATE_COMPLETED",
    );
    const body = (await res.json()) as { task: { id: string; status: { state: string } } };
    expect(body.task.status.state).toBe("TASK_STATE_COMPLETED");
    const got = await fetch(at(target.url, `tasks/${body.task.id}`), { headers: { "A2A-Version": "1.0" } });
    expect(((await got.json()) as { id: string }).id).toBe(body.task.id);
    const missing = await fetch(at(target.url, "tasks/no-such-task"), { headers: { "A2A-Version": "1.0" } });
    expect(missing.status).toBe(404);
    const noRoute = await fetch(at(target.url, "no/such/route"));
    expect(noRoute.status).toBe(404);
    expect(await noRoute.json()).toMatchObject({ error: { code: 404, status: "NOT_FOUND" } });
  });
});

describe("REST routes keep the JSON-RPC endpoint's guards", () => {
  test("bearer auth: every REST route needs the token; the card stays public", async () => {
    const token = "rest-secret-token";
    green = await startGreen(fixtureRunner("events.mjs"), {}, { ...process.env, GREEN_AUTH_TOKEN: token });
    const base = green.url;
    const msg = JSON.stringify({ message: { messageId: "m-auth", role: "ROLE_USER", parts: [{ text: "{}" }] } });
    const attempts: Array<[string, string, string | undefined]> = [
      ["POST", "message:send", msg],
      ["POST", "message:stream", msg],
      ["GET", "tasks/some-id", undefined],
      ["POST", "tasks/some-id:cancel", undefined],
      ["GET", "tasks/some-id:subscribe", undefined],
      ["GET", "tasks", undefined],
      ["POST", "v1/message:send", msg],
      ["GET", "v1/tasks/some-id", undefined],
      ["POST", "tenant-x/message:send", msg],
      ["GET", "extendedAgentCard", undefined],
    ];
    for (const [method, path, body] of attempts) {
      for (const auth of [undefined, "Bearer wrong-token"]) {
        const res = await fetch(at(base, path), {
          method,
          headers: { ...REST_V1, ...(auth ? { authorization: auth } : {}) },
          ...(body ? { body } : {}),
        });
        expect(res.status, `${method} /${path} with ${auth ?? "no token"}`).toBe(401);
        expect(res.headers.get("www-authenticate")).toMatch(/Bearer/);
        expect(await res.json()).toMatchObject({ error: { code: 401, status: "UNAUTHENTICATED" } });
      }
    }
    expect((await fetch(new URL(".well-known/agent-card.json", base))).status).toBe(200);
    const ok = await fetch(at(base, "message:send"), {
      method: "POST",
      headers: { ...REST_V1, authorization: `Bearer ${token}` },
      body: JSON.stringify({
        message: { messageId: "m-auth-ok", role: "ROLE_USER", parts: [{ text: JSON.stringify(assessment()) }] },
      }),
    });
    expect(ok.status).toBe(200);
  });

  test("body limit: an oversize REST body gets 413 in REST error shape, on both REST versions", async () => {
    const s = await serveOnLoopback((card) => createPurpleApp({ card, solver: slowEchoSolver(0), maxBodyBytes: 2048 }));
    served = s;
    const big = JSON.stringify({
      message: { messageId: "m-big", role: "ROLE_USER", parts: [{ text: "x".repeat(4096) }] },
    });
    for (const [path, headers] of [
      ["message:send", REST_V1],
      ["v1/message:send", { "content-type": "application/json" }],
    ] as const) {
      const res = await fetch(at(s.url, path), { method: "POST", headers, body: big });
      expect(res.status, path).toBe(413);
      expect(await res.json()).toMatchObject({
        error: { code: 413, message: "Request body exceeds the limit of 2048 bytes" },
      });
    }
    const alt = await fetch(at(s.url, "message:send"), {
      method: "POST",
      headers: { ...REST_V1, "content-type": "application/a2a+json" },
      body: big,
    });
    expect(alt.status).toBe(413);
    const bad = await fetch(at(s.url, "message:send"), { method: "POST", headers: REST_V1, body: "{not json" });
    expect(bad.status).toBe(400);
    expect(await bad.json()).toMatchObject({
      error: { code: 400, status: "INVALID_ARGUMENT", message: "Invalid JSON payload." },
    });
  });

  test("param guard: a message without parts and a negative historyLength are refused over REST", async () => {
    target = await startPurpleTarget();
    const empty = await fetch(at(target.url, "message:send"), {
      method: "POST",
      headers: REST_V1,
      body: JSON.stringify({ message: { messageId: "m-empty", role: "ROLE_USER", parts: [] } }),
    });
    expect(empty.status).toBe(400);
    expect(JSON.stringify(await empty.json())).toMatch(/message.parts must contain at least one part/);
    const sent = (await (
      await fetch(at(target.url, "message:send"), {
        method: "POST",
        headers: REST_V1,
        body: JSON.stringify({ message: { messageId: "m-hl", role: "ROLE_USER", parts: [{ text: "x" }] } }),
      })
    ).json()) as { task: { id: string } };
    const neg = await fetch(at(target.url, `tasks/${sent.task.id}?historyLength=-1`), {
      headers: { "A2A-Version": "1.0" },
    });
    expect(neg.status).toBe(400);
  });
});

/** `path` under the agent's base URL (`new URL("message:send", base)` would read `message:` as a scheme). */
function at(base: string, path: string): string {
  return `${base.replace(/\/+$/, "")}/${path}`;
}

/** Record `METHOD path` (relative to the agent's base URL) of every request made through fetch. */
/** Records "METHOD path" of every request the client sends (its fetch sends them with node's http.request). */
function recordRequests(seen: string[]) {
  const realRequest = http.request.bind(http) as (...args: unknown[]) => http.ClientRequest;
  return vi.spyOn(http, "request").mockImplementation((...args: unknown[]) => {
    const req = realRequest(...args);
    seen.push(`${req.method} ${req.path.split("?")[0]!.slice(1)}`);
    return req;
  });
}
