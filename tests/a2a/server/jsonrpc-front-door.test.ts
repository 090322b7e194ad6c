import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { IncomingMessage, ServerResponse } from "node:http";
import { createA2AExpressApp, responseVersion } from "../../../src/a2a/server/express-app.js";
import { preRead, withJsonRpcFrontDoor, type PreRead } from "../../../src/a2a/server/jsonrpc-front-door.js";
import type { ServedApp } from "../../../src/a2a/server/serve.js";
import { PurpleExecutor } from "../../../src/purple/executor.js";
import { createSolver } from "../../../src/purple/solvers/index.js";
import { silentLogger } from "../../../src/util/logger.js";
import { serveOnLoopback } from "../helpers.js";

const TOKEN = "s3cret-token";
const LIMIT = 600;

const send = (text: string, method = "message/send") => ({
  jsonrpc: "2.0",
  id: 7,
  method,
  params: { message: { kind: "message", role: "user", messageId: "u1", parts: [{ kind: "text", text }] } },
});
const sendV1 = {
  jsonrpc: "2.0",
  id: "a",
  method: "SendMessage",
  params: { message: { role: "ROLE_USER", messageId: "u1", parts: [{ text: "hi" }] } },
};

interface Req {
  name: string;
  /** A JSON value (sent with JSON.stringify) or raw text. */
  body: unknown;
  raw?: boolean;
  path?: string;
  headers?: Record<string, string>;
  /** Whether the front door answers it itself (else Express does, with or without what the door read). */
  front: "answers" | "reads, then Express" | "Express";
}

const AUTH = { authorization: `Bearer ${TOKEN}` };
const REQUESTS: Req[] = [
  { name: "0.3 message/send", body: send("ping"), headers: AUTH, front: "answers" },
  { name: "1.0 SendMessage without the header", body: sendV1, headers: AUTH, front: "answers" },
  {
    name: "1.0 SendMessage, A2A-Version 1.0",
    body: sendV1,
    headers: { ...AUTH, "A2A-Version": "1.0" },
    front: "answers",
  },
  { name: "unsupported version", body: send("ping"), headers: { ...AUTH, "A2A-Version": "7.0" }, front: "answers" },
  {
    name: "tasks/get of an unknown task",
    body: { jsonrpc: "2.0", id: 2, method: "tasks/get", params: { id: "nope" } },
    headers: AUTH,
    front: "answers",
  },
  {
    name: "unknown method",
    body: { jsonrpc: "2.0", id: 3, method: "tasks/frobnicate", params: {} },
    headers: AUTH,
    front: "answers",
  },
  {
    name: "invalid params",
    body: { jsonrpc: "2.0", id: 4, method: "message/send", params: {} },
    headers: AUTH,
    front: "answers",
  },
  {
    name: "invalid envelope",
    body: { jsonrpc: "1.0", id: 5, method: "message/send", params: {} },
    headers: AUTH,
    front: "reads, then Express",
  },
  { name: "batch", body: [send("a")], headers: AUTH, front: "reads, then Express" },
  { name: "a JSON string", body: '"text"', raw: true, headers: AUTH, front: "reads, then Express" },
  { name: "not JSON", body: "{bad", raw: true, headers: AUTH, front: "reads, then Express" },
  { name: "empty body", body: "", raw: true, headers: AUTH, front: "Express" },
  { name: "over the body limit", body: send("x".repeat(LIMIT)), headers: AUTH, front: "reads, then Express" },
  { name: "message/stream (SSE)", body: send("ping", "message/stream"), headers: AUTH, front: "reads, then Express" },
  { name: "no token", body: send("ping"), front: "Express" },
  { name: "wrong token", body: send("ping"), headers: { authorization: "Bearer wrong" }, front: "Express" },
  { name: "version as a query parameter", body: sendV1, path: "?A2A-Version=1.0", headers: AUTH, front: "Express" },
  {
    name: "another media type",
    body: send("ping"),
    headers: { ...AUTH, "content-type": "text/plain" },
    front: "Express",
  },
  {
    name: "a charset body-parser decodes",
    body: send("ping"),
    headers: { ...AUTH, "content-type": "application/json; charset=utf-16" },
    front: "Express",
  },
];

/** Ids, timestamps and the Date header differ between two agents; everything else must not. */
function normalise(text: string): string {
  return text
    .replace(/[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}/g, "<uuid>")
    .replace(/\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(\.\d+)?Z/g, "<time>");
}

async function exchange(url: string, r: Req) {
  const res = await fetch(url + (r.path ?? ""), {
    method: "POST",
    headers: { "content-type": "application/json", ...r.headers },
    body: r.raw ? (r.body as string) : JSON.stringify(r.body),
  });
  const headers = [...res.headers.entries()].filter(
    ([k]) => k !== "date" && k !== "keep-alive" && k !== "content-length",
  );
  return { status: res.status, headers, body: normalise(await res.text()) };
}

describe("the JSON-RPC front door", () => {
  const agents: Array<ServedApp & { url: string }> = [];
  const make = (frontDoor: boolean) =>
    serveOnLoopback(async (card) =>
      createA2AExpressApp({
        card,
        executor: new PurpleExecutor(await createSolver("echo"), silentLogger()),
        logger: silentLogger(),
        maxBodyBytes: LIMIT,
        authToken: TOKEN,
        frontDoor,
      }),
    );
  beforeAll(async () => {
    agents.push(await make(true), await make(false));
  });
  afterAll(async () => {
    for (const a of agents) await a.close();
  });

  it.each(REQUESTS)("answers $name as the Express route does", async (r) => {
    const [front, route] = agents;
    const a = await exchange(front!.url, r);
    const b = await exchange(route!.url, r);
    expect(a).toEqual(b);
    expect(a.status).toBeGreaterThanOrEqual(200);
  });

  it("answers the common case with the agent's real work", async () => {
    const a = await exchange(agents[0]!.url, REQUESTS[0]!);
    expect(a.status).toBe(200);
    expect(a.headers).toContainEqual(["a2a-version", "0.3.0"]);
    expect(JSON.parse(a.body)).toMatchObject({
      jsonrpc: "2.0",
      id: 7,
      result: { kind: "task", status: { state: "completed" } },
    });
    const v1 = await exchange(agents[0]!.url, REQUESTS[1]!);
    expect(v1.headers).toContainEqual(["a2a-version", "1.0"]);
    expect(v1.body).toContain('"task"');
    for (const refused of REQUESTS.filter((r) => r.name.endsWith("token")))
      expect((await exchange(agents[0]!.url, refused)).status).toBe(401);
    expect(
      (
        await exchange(
          agents[0]!.url,
          REQUESTS.find((r) => r.name === "over the body limit")!,
        )
      ).status,
    ).toBe(413);
  });
});

describe("withJsonRpcFrontDoor: what it takes and what it hands over", () => {
  let served: ServedApp & { url: string };
  const handed: Array<{ url: string | undefined; read: PreRead | undefined }> = [];
  const answered: unknown[] = [];
  beforeAll(async () => {
    served = await serveOnLoopback(() =>
      withJsonRpcFrontDoor(
        {
          maxBodyBytes: LIMIT,
          authToken: TOKEN,
          responseVersion,
          answer: async (_req: IncomingMessage, res: ServerResponse, body: unknown) => {
            answered.push(body);
            res.end("front");
          },
        },
        (req, res) => {
          handed.push({ url: req.url, read: preRead(req) });
          res.end("express");
        },
      ),
    );
  });
  afterAll(() => served.close());

  it.each(REQUESTS)("$name: $front", async (r) => {
    handed.length = 0;
    answered.length = 0;
    const res = await fetch(served.url + (r.path ?? ""), {
      method: "POST",
      headers: { "content-type": "application/json", ...r.headers },
      body: r.raw ? (r.body as string) : JSON.stringify(r.body),
    });
    const text = await res.text();
    if (r.front === "answers") {
      expect(text).toBe("front");
      expect(handed).toEqual([]);
      expect(answered).toEqual([r.body]);
      return;
    }
    expect(text).toBe("express");
    expect(answered).toEqual([]);
    expect(handed).toHaveLength(1);
    const read = handed[0]!.read;
    if (r.front === "Express") expect(read).toBeUndefined();
    else if (r.raw)
      expect(read).toMatchObject({ error: expect.any(SyntaxError) }); // strict JSON: an object or array
    else if (r.name === "over the body limit")
      expect(read).toMatchObject({ error: { type: "entity.too.large", status: 413 } });
    else expect(read).toEqual({ body: r.body });
  });

  it("leaves GET, other paths and other methods to Express unread", async () => {
    for (const [method, path] of [
      ["GET", "/"],
      ["POST", "/message:send"],
      ["PUT", "/"],
      ["POST", "//"],
    ] as const) {
      handed.length = 0;
      const res = await fetch(served.url.replace(/\/$/, "") + path, {
        method,
        headers: { "content-type": "application/json", ...AUTH },
        ...(method === "GET" ? {} : { body: JSON.stringify(send("x")) }),
      });
      expect(await res.text()).toBe("express");
      expect(handed).toEqual([{ url: path, read: undefined }]);
    }
  });
});
