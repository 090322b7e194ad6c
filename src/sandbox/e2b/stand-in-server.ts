/**
 * A local stand-in for E2B's cloud, speaking the HTTP the SDK uses
 * (`POST /v2/sandboxes`, `DELETE /sandboxes/{id}`, `POST /execute` NDJSON,
 * `/contexts`, and envd's `/process.Process/Start`, `/files` and `/health`:
 * stand-in-envd.ts), executing code with the local sandbox. E2B's cloud is not
 * reachable here; point the SDK at this with E2B_API_URL and E2B_SANDBOX_URL.
 * Each sandbox lives until DELETE or its `timeout` (seconds, as the API takes
 * it; default 300 as E2B's), whichever comes first; then its jobs stop and its
 * tree is removed. A route of a sandbox that is gone answers 502, as E2B's
 * edge does (the SDK reads that as "not running").
 * It counts requests per route so a benchmark can report requests per solution.
 * A factory: it listens on 127.0.0.1, port 0 unless given.
 */
import { createServer, type IncomingMessage, type Server, type ServerResponse } from "node:http";
import { randomUUID } from "node:crypto";
import { chmod, mkdir, mkdtemp } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { removeTree } from "../remove-tree.js";
import type { Sandbox } from "../types.js";
import { processStartRoute, readFileRoute, writeFileRoute, type EnvdSandbox } from "./stand-in-envd.js";

export interface StandInServer {
  /** Base URL, e.g. http://127.0.0.1:PORT — use for both E2B_API_URL and E2B_SANDBOX_URL. */
  url: string;
  /** Requests per route, e.g. { "POST /v2/sandboxes": 1, "POST /execute": 3 }. */
  counts: Record<string, number>;
  /** Ids of sandboxes created and not killed. */
  live: Set<string>;
  /** What each create request asked for, by sandbox id (kept after the sandbox is gone). */
  created: Map<string, CreateRequest>;
  /** Host directory of a live sandbox's file system (for tests; undefined once it is gone). */
  treeOf(id: string): string | undefined;
  close(): Promise<void>;
}

/** The fields of `POST /v2/sandboxes` the stand-in honours or records. */
export interface CreateRequest {
  templateID: string;
  /** Lifetime, seconds. */
  timeout?: number;
  allow_internet_access?: boolean;
  metadata?: Record<string, string>;
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
/** E2B's default sandbox lifetime when the create request names none, seconds. */
const DEFAULT_SANDBOX_TIMEOUT_S = 300;

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
  created: Map<string, CreateRequest>;
  /** Sandbox id → its envd state (tree, kill switch, lifetime). */
  envd: Map<string, EnvdSandbox & { timer: NodeJS.Timeout }>;
  /** Parent of every sandbox's tree (mode 0700). */
  treeRoot: string;
}

/** Kill a sandbox: its jobs stop, its tree goes; false when it was not live. */
async function killSandbox(state: StandInState, id: string): Promise<boolean> {
  if (!state.live.delete(id)) return false;
  const sb = state.envd.get(id);
  state.envd.delete(id);
  state.tokens.delete(id);
  if (sb) {
    clearTimeout(sb.timer);
    sb.killed.abort();
    await removeTree(sb.tree);
  }
  return true;
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
  const asked = JSON.parse((await body(req)) || "{}") as CreateRequest;
  const lifetimeS = asked.timeout ?? DEFAULT_SANDBOX_TIMEOUT_S;
  const tree = join(state.treeRoot, randomUUID());
  await mkdir(tree, { mode: 0o700 });
  state.created.set(id, asked);
  state.live.add(id);
  state.tokens.set(id, token);
  const timer = setTimeout(() => void killSandbox(state, id), lifetimeS * 1000);
  timer.unref();
  state.envd.set(id, { tree, killed: new AbortController(), deadline: Date.now() + lifetimeS * 1000, timer });
  return json(res, 201, {
    sandboxID: id,
    templateID: asked.templateID ?? "code-interpreter-v1",
    clientID: "standin",
    envdVersion: ENVD_VERSION,
    envdAccessToken: token,
  });
}

/** `GET /sandboxes/{id}`: the control plane's view of a sandbox (running until killed or its lifetime ends). */
function sandboxInfoRoute(state: StandInState, id: string, res: ServerResponse): void {
  const sb = state.envd.get(id);
  const asked = state.created.get(id);
  if (!state.live.has(id) || !sb || !asked) return json(res, 404, { code: 404, message: `sandbox ${id} not found` });
  json(res, 200, {
    sandboxID: id,
    templateID: asked.templateID,
    clientID: "standin",
    startedAt: new Date(sb.deadline - (asked.timeout ?? DEFAULT_SANDBOX_TIMEOUT_S) * 1000).toISOString(),
    endAt: new Date(sb.deadline).toISOString(),
    envdVersion: ENVD_VERSION,
    state: "running",
    cpuCount: 1,
    memoryMB: 512,
    metadata: asked.metadata ?? {},
  });
}

/** `POST /execute`: run the python code with the executor and stream its output as the SDK's NDJSON events. */
async function executeRoute(
  state: StandInState,
  req: IncomingMessage,
  res: ServerResponse,
  killed: AbortSignal,
): Promise<void> {
  const { code, language } = JSON.parse(await body(req)) as { code: string; language?: string };
  if (language && language !== "python")
    return json(res, 400, { message: `stand-in runs python only, got ${language}` });
  // A killed sandbox stops what runs in it, as E2B's VM does.
  const out = await state.opts.executor.exec(
    { language: "python", code, timeoutMs: state.opts.executeTimeoutMs ?? DEFAULT_EXECUTE_TIMEOUT_MS },
    killed,
  );
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
  if (method === "GET" && /^\/sandboxes\/[^/]+$/.test(url.pathname))
    return sandboxInfoRoute(state, url.pathname.split("/")[2]!, res);
  if (method === "DELETE" && url.pathname.startsWith("/sandboxes/")) {
    const id = url.pathname.split("/")[2]!;
    if (!(await killSandbox(state, id))) return json(res, 404, { code: 404, message: "sandbox not found" });
    res.writeHead(204).end();
    return;
  }
  const id = String(req.headers["e2b-sandbox-id"] ?? "");
  if (!state.live.has(id)) return json(res, 502, { code: 502, message: "sandbox not found" });
  if (req.headers["x-access-token"] !== state.tokens.get(id))
    return json(res, 401, { code: 401, message: "bad access token" });
  const sb = state.envd.get(id)!;
  if (method === "POST" && url.pathname === "/execute") return executeRoute(state, req, res, sb.killed.signal);
  const envdRoute = (method === "POST" && url.pathname === "/process.Process/Start") || url.pathname === "/files";
  // Environments rely on the executor's jail to keep sandboxes apart: only bwrap shows a job no other tree.
  if (envdRoute && state.opts.executor.isolation !== "bwrap")
    return json(res, 501, { code: 501, message: "the stand-in runs commands and files only on a bwrap executor" });
  if (method === "POST" && url.pathname === "/process.Process/Start")
    return processStartRoute(state.opts.executor, sb, req, res);
  const path = url.searchParams.get("path") ?? "";
  if (method === "GET" && url.pathname === "/files") return readFileRoute(state.opts.executor, sb, path, res);
  if (method === "POST" && url.pathname === "/files") return writeFileRoute(state.opts.executor, sb, path, req, res);
  envdStubRoute(method, url.pathname, res);
}

/** Start the stand-in. */
export async function startE2bStandIn(opts: StandInOptions): Promise<StandInServer> {
  const treeRoot = await mkdtemp(join(tmpdir(), "a2a-e2b-standin-"));
  await chmod(treeRoot, 0o700);
  const state: StandInState = {
    opts,
    counts: {},
    live: new Set<string>(),
    tokens: new Map<string, string>(),
    created: new Map(),
    envd: new Map(),
    treeRoot,
  };
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
    created: state.created,
    treeOf: (id) => state.envd.get(id)?.tree,
    close: async () => {
      await Promise.all([...state.live].map((id) => killSandbox(state, id)));
      await new Promise<void>((r) => {
        server.closeAllConnections();
        server.close(() => r());
      });
      await removeTree(treeRoot);
    },
  };
}
