/**
 * A local stand-in for E2B's cloud, speaking the HTTP the SDK uses
 * (`POST /v2/sandboxes`, `DELETE /sandboxes/{id}`, `POST /execute` NDJSON,
 * `/contexts`), executing code with the local sandbox. E2B's cloud is not
 * reachable here; point the SDK at this with E2B_API_URL and E2B_SANDBOX_URL.
 * It counts requests per route so a benchmark can report requests per solution.
 * A factory: it listens on 127.0.0.1, port 0 unless given.
 */
import { createServer, type IncomingMessage, type Server, type ServerResponse } from "node:http";
import { randomUUID } from "node:crypto";
import type { Sandbox } from "../types.js";

export interface StandInServer {
  /** Base URL, e.g. http://127.0.0.1:PORT — use for both E2B_API_URL and E2B_SANDBOX_URL. */
  url: string;
  /** Requests per route, e.g. { "POST /v2/sandboxes": 1, "POST /execute": 3 }. */
  counts: Record<string, number>;
  /** Ids of sandboxes created and not killed. */
  live: Set<string>;
  close(): Promise<void>;
}

export interface StandInOptions {
  /** Executes the code sent to /execute (python). */
  executor: Sandbox;
  /** API key the stand-in accepts; default: any non-empty key. */
  apiKey?: string;
  port?: number;
  /** Wall limit for one /execute, ms; default 10 minutes. */
  executeTimeoutMs?: number;
}

const ENVD_VERSION = "0.2.0";

/** Default wall limit of one /execute, ms (10 minutes): a whole batch runs in one request (batch-driver.ts). */
const DEFAULT_EXECUTE_TIMEOUT_MS = 600_000;

async function body(req: IncomingMessage): Promise<string> {
  const chunks: Buffer[] = [];
  for await (const c of req) chunks.push(c as Buffer);
  return Buffer.concat(chunks).toString("utf8");
}

function json(res: ServerResponse, status: number, value: unknown): void {
  res.writeHead(status, { "content-type": "application/json" }).end(JSON.stringify(value));
}

/** What the stand-in keeps across requests. */
interface StandInState {
  opts: StandInOptions;
  counts: Record<string, number>;
  /** Ids of sandboxes created and not killed. */
  live: Set<string>;
  /** Sandbox id → its envd access token. */
  tokens: Map<string, string>;
}

/** The route a request is counted under: sandbox and context ids collapsed to `{id}`. */
function routeOf(method: string, pathname: string): string {
  return `${method} ${pathname.replace(/^\/sandboxes\/[^/]+/, "/sandboxes/{id}").replace(/^\/contexts\/[^/]+/, "/contexts/{id}")}`;
}

/** `POST /v2/sandboxes`: check the API key, then create a sandbox id and its access token. */
async function createSandboxRoute(state: StandInState, req: IncomingMessage, res: ServerResponse): Promise<void> {
  const key = req.headers["x-api-key"];
  if (!key || (state.opts.apiKey !== undefined && key !== state.opts.apiKey))
    return json(res, 401, { code: 401, message: "invalid API key" });
  const id = `standin-${randomUUID().slice(0, 8)}`;
  const token = randomUUID();
  state.live.add(id);
  state.tokens.set(id, token);
  await body(req);
  return json(res, 201, {
    sandboxID: id,
    templateID: "code-interpreter-v1",
    clientID: "standin",
    envdVersion: ENVD_VERSION,
    envdAccessToken: token,
  });
}

/** `POST /execute`: run the python code with the executor and stream its output as the SDK's NDJSON events. */
async function executeRoute(state: StandInState, req: IncomingMessage, res: ServerResponse): Promise<void> {
  const { code, language } = JSON.parse(await body(req)) as { code: string; language?: string };
  if (language && language !== "python")
    return json(res, 400, { message: `stand-in runs python only, got ${language}` });
  const out = await state.opts.executor.exec({
    language: "python",
    code,
    timeoutMs: state.opts.executeTimeoutMs ?? DEFAULT_EXECUTE_TIMEOUT_MS,
  });
  res.writeHead(200, { "content-type": "application/x-ndjson" });
  for (const line of out.stdoutTail.split(/(?<=\n)/))
    if (line) res.write(JSON.stringify({ type: "stdout", text: line }) + "\n");
  for (const line of out.stderrTail.split(/(?<=\n)/))
    if (line) res.write(JSON.stringify({ type: "stderr", text: line }) + "\n");
  if (out.exitCode !== 0) {
    const why = out.timedOut ? "TimeoutError" : out.infraError ? "InfraError" : "ExecutionError";
    res.write(
      JSON.stringify({
        type: "error",
        name: why,
        value: out.infraError ?? `exit ${out.exitCode} signal ${out.signal}`,
        traceback: out.stderrTail.slice(-4000),
      }) + "\n",
    );
  }
  res.end(JSON.stringify({ type: "end_of_execution" }) + "\n");
}

/** The other envd routes the SDK touches (contexts, health), answered with fixed replies; anything else is 404. */
function envdStubRoute(method: string, pathname: string, res: ServerResponse): void {
  if (pathname === "/contexts" && method === "POST")
    return json(res, 200, { id: randomUUID(), language: "python", cwd: "/home/user" });
  if (pathname === "/contexts" && method === "GET") return json(res, 200, []);
  if (pathname.startsWith("/contexts/") || pathname === "/health") {
    res.writeHead(204).end();
    return;
  }
  json(res, 404, { message: `stand-in does not implement ${method} ${pathname}` });
}

/** Count the request, then route it: the API's sandbox routes, or (with a live sandbox's access token) envd's. */
async function handle(state: StandInState, req: IncomingMessage, res: ServerResponse): Promise<void> {
  const url = new URL(req.url ?? "/", "http://x");
  const method = req.method ?? "GET";
  const route = routeOf(method, url.pathname);
  state.counts[route] = (state.counts[route] ?? 0) + 1;
  if (method === "POST" && url.pathname === "/v2/sandboxes") return createSandboxRoute(state, req, res);
  if (method === "DELETE" && url.pathname.startsWith("/sandboxes/")) {
    const id = url.pathname.split("/")[2]!;
    if (!state.live.delete(id)) return json(res, 404, { code: 404, message: "sandbox not found" });
    res.writeHead(204).end();
    return;
  }
  const id = String(req.headers["e2b-sandbox-id"] ?? "");
  if (!state.live.has(id) || req.headers["x-access-token"] !== state.tokens.get(id))
    return json(res, 401, { code: 401, message: "unknown sandbox or bad access token" });
  if (method === "POST" && url.pathname === "/execute") return executeRoute(state, req, res);
  envdStubRoute(method, url.pathname, res);
}

/** Start the stand-in. */
export async function startE2bStandIn(opts: StandInOptions): Promise<StandInServer> {
  const state: StandInState = { opts, counts: {}, live: new Set<string>(), tokens: new Map<string, string>() };
  const server: Server = createServer((req, res) => {
    handle(state, req, res).catch((e: Error) => {
      if (!res.headersSent) json(res, 500, { message: e.message });
      else res.end();
    });
  });
  await new Promise<void>((r) => server.listen(opts.port ?? 0, "127.0.0.1", () => r()));
  const port = (server.address() as { port: number }).port;
  return {
    url: `http://127.0.0.1:${port}`,
    counts: state.counts,
    live: state.live,
    close: () =>
      new Promise<void>((r) => {
        server.closeAllConnections();
        server.close(() => r());
      }),
  };
}
