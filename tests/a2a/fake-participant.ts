/**
 * A hostile participant on loopback, at a path prefix: serves an agent card
 * whose URLs point wherever the test says (another server, to prove they are
 * never followed), and answers each JSON-RPC question as its `answer` function
 * says — a valid reply (0.3 `message/send` or 1.0 `SendMessage`, whichever
 * arrives), malformed JSON, a JSON-RPC error, HTTP 500, a reset connection, a
 * redirect, an endless stream, a whole JSON-RPC response written out (a
 * fixture of another team's purple, tests/fixtures/dialects), or any body byte for byte (a gzip bomb, JSON
 * nested 300,000 deep); its card may be any body too. Every request is recorded. Also a recorder:
 * a server that only counts what reaches it.
 */
import { createServer, type IncomingMessage, type Server, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";

export type Answer =
  | { kind: "text"; text: string }
  /** A whole JSON-RPC response body as a participant sent it (its `id` replaced by the request's). */
  | { kind: "rpc_response"; body: Record<string, unknown> }
  | { kind: "malformed" }
  | { kind: "rpc_error" }
  | { kind: "http_500" }
  | { kind: "reset" }
  | { kind: "redirect"; to: string }
  /** `bytes` of a never-ending JSON string (chunked), or SSE events when `sse`. */
  | { kind: "flood"; bytes: number; sse?: boolean }
  /** A body sent byte for byte (`id`: the request's JSON-RPC id), with these headers (content-type defaults to JSON). */
  | { kind: "raw"; body: (id: unknown) => Buffer | string; headers?: Record<string, string> };

export interface Hit {
  method: string;
  path: string;
  rpcMethod?: string;
}

export interface FakeParticipant {
  /** The participant URL: `http://127.0.0.1:<port><prefix>`. */
  url: string;
  port: number;
  hits: Hit[];
  /** Bytes of flood bodies the server got written before the client went away. */
  floodBytesWritten: number;
  close(): Promise<void>;
}

export interface FakeOptions {
  /** Path the agent lives under, with slashes (default `/`). */
  prefix?: string;
  /** The URL the card advertises (default: the participant's own). */
  cardUrl?: (ownUrl: string) => string;
  /** `legacy`: a 0.3 card (`url`, `additionalInterfaces`); `v1`: `supportedInterfaces`. */
  cardShape?: "legacy" | "v1";
  /** The answer to the n-th question (0-based). */
  answer: (n: number, text: string) => Answer;
  /** The card's body and headers as sent, instead of the card the other options describe. */
  rawCard?: { body: Buffer | string; headers: Record<string, string> };
}

export function card(shape: "legacy" | "v1", url: string): Record<string, unknown> {
  const common = {
    name: "hostile",
    description: "fake participant",
    version: "0.0.1",
    capabilities: { streaming: false },
    defaultInputModes: ["text/plain"],
    defaultOutputModes: ["text/plain"],
    skills: [],
  };
  if (shape === "legacy") {
    return {
      ...common,
      protocolVersion: "0.3.0",
      url,
      preferredTransport: "JSONRPC",
      additionalInterfaces: [
        { url, transport: "JSONRPC" },
        { url, transport: "HTTP+JSON" },
      ],
    };
  }
  return {
    ...common,
    supportedInterfaces: [{ url, protocolBinding: "JSONRPC", protocolVersion: "1.0", tenant: "" }],
  };
}

function readBody(req: IncomingMessage): Promise<string> {
  return new Promise((resolve, reject) => {
    let body = "";
    req.on("data", (d: Buffer) => (body += d.toString()));
    req.on("end", () => resolve(body));
    req.on("error", reject);
  });
}

/** The reply text inside a valid result for the wire the question came on. */
function result(rpcMethod: string, text: string): unknown {
  if (rpcMethod === "SendMessage") {
    return { message: { messageId: "m1", role: "ROLE_AGENT", parts: [{ text }] } };
  }
  return { kind: "message", messageId: "m1", role: "agent", parts: [{ kind: "text", text }] };
}

/** The question's text (first text part, either wire). */
function questionText(rpc: { params?: { message?: { parts?: Array<{ text?: string }> } } }): string {
  return rpc.params?.message?.parts?.find((p) => typeof p.text === "string")?.text ?? "";
}

/** Write `total` bytes in 64 KiB chunks, waiting for drain; counts what the socket accepted. */
async function flood(res: ServerResponse, total: number, sse: boolean, count: (n: number) => void): Promise<void> {
  res.writeHead(200, { "content-type": sse ? "text/event-stream" : "application/json" });
  const chunk = Buffer.alloc(64 * 1024, sse ? "x" : "a");
  if (!sse)
    res.write(
      '{"jsonrpc":"2.0","id":1,"result":{"kind":"message","messageId":"m","role":"agent","parts":[{"kind":"text","text":"',
    );
  let sent = 0;
  while (sent < total && !res.destroyed) {
    const piece = sse ? Buffer.concat([Buffer.from("data: "), chunk, Buffer.from("\n")]) : chunk;
    const ok = res.write(piece);
    sent += piece.length;
    count(piece.length);
    if (!ok) {
      await new Promise<void>((resolve) => {
        const done = (): void => {
          res.off("drain", done);
          res.off("close", done);
          resolve();
        };
        res.on("drain", done);
        res.on("close", done);
      });
    }
  }
  if (!res.destroyed) res.end(sse ? "\n" : '"}]}}');
}

async function handle(
  o: FakeOptions,
  self: FakeParticipant,
  counter: { n: number },
  req: IncomingMessage,
  res: ServerResponse,
): Promise<void> {
  const path = req.url ?? "/";
  const prefix = o.prefix ?? "/";
  if (req.method === "GET" && path === `${prefix}.well-known/agent-card.json`) {
    self.hits.push({ method: "GET", path });
    if (o.rawCard) {
      res.writeHead(200, o.rawCard.headers);
      return void res.end(o.rawCard.body);
    }
    res.writeHead(200, { "content-type": "application/json" });
    return void res.end(JSON.stringify(card(o.cardShape ?? "legacy", o.cardUrl ? o.cardUrl(self.url) : self.url)));
  }
  const body = await readBody(req);
  let rpc: { id?: unknown; method?: string; params?: { message?: { parts?: Array<{ text?: string }> } } } = {};
  try {
    rpc = JSON.parse(body) as typeof rpc;
  } catch {
    // recorded as is
  }
  self.hits.push({ method: req.method ?? "", path, ...(rpc.method ? { rpcMethod: rpc.method } : {}) });
  if (path !== prefix || req.method !== "POST") {
    res.writeHead(404);
    return void res.end();
  }
  const answer = o.answer(counter.n++, questionText(rpc));
  const json = (status: number, value: unknown): void => {
    res.writeHead(status, { "content-type": "application/json" });
    res.end(JSON.stringify(value));
  };
  switch (answer.kind) {
    case "text":
      return json(200, { jsonrpc: "2.0", id: rpc.id, result: result(rpc.method ?? "", answer.text) });
    case "rpc_response":
      return json(200, { ...answer.body, id: rpc.id });
    case "malformed":
      res.writeHead(200, { "content-type": "application/json" });
      return void res.end('{"jsonrpc": "2.0", "id": 1, "result": {oops');
    case "rpc_error":
      return json(200, {
        jsonrpc: "2.0",
        id: rpc.id,
        error: { code: -32603, message: "internal error, no score please" },
      });
    case "http_500":
      res.writeHead(500, { "content-type": "text/plain" });
      return void res.end("boom");
    case "reset":
      return void req.socket.destroy();
    case "redirect":
      res.writeHead(307, { location: answer.to });
      return void res.end();
    case "flood":
      return flood(res, answer.bytes, answer.sse === true, (n) => (self.floodBytesWritten += n));
    case "raw":
      res.writeHead(200, { "content-type": "application/json", ...answer.headers });
      return void res.end(answer.body(rpc.id));
  }
}

function listen(server: Server): Promise<number> {
  return new Promise((resolve) => server.listen(0, "127.0.0.1", () => resolve((server.address() as AddressInfo).port)));
}

function closeServer(server: Server): Promise<void> {
  server.closeAllConnections();
  return new Promise((resolve) => server.close(() => resolve()));
}

export async function startFakeParticipant(o: FakeOptions): Promise<FakeParticipant> {
  const counter = { n: 0 };
  const self: FakeParticipant = { url: "", port: 0, hits: [], floodBytesWritten: 0, close: () => Promise.resolve() };
  const server = createServer((req, res) => {
    handle(o, self, counter, req, res).catch(() => res.destroy());
  });
  self.port = await listen(server);
  self.url = `http://127.0.0.1:${self.port}${o.prefix ?? "/"}`;
  self.close = () => closeServer(server);
  return self;
}

/** A server that answers 200 `{}` to anything and records every request: the card's decoy target. */
export async function startRecorder(): Promise<{ url: string; hits: Hit[]; close(): Promise<void> }> {
  const hits: Hit[] = [];
  const server = createServer((req, res) => {
    hits.push({ method: req.method ?? "", path: req.url ?? "" });
    res.writeHead(200, { "content-type": "application/json" });
    res.end("{}");
  });
  const port = await listen(server);
  return { url: `http://127.0.0.1:${port}/internal/admin/`, hits, close: () => closeServer(server) };
}
