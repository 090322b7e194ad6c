/**
 * A stand-in for the AgentBeats gateway's participant proxy (RDI-Foundation/agentbeats-gateway,
 * src/proxy.py), as its code behaves: `/<role>/<path>` is forwarded to the role's upstream URL with
 * method, headers and body; the agent card's loopback URLs (`url`, `supportedInterfaces[].url`) are
 * rewritten to `<gateway>/<role>/…` and its signatures dropped; everything else streams through;
 * each proxied request gets 300 s. Every forwarded request carries `x-gateway-stand-in: 1` so a test
 * can tell that a participant was reached through the proxy only.
 */
import { createServer, request as httpRequest, type IncomingMessage, type Server } from "node:http";
import type { AddressInfo } from "node:net";

/** The gateway's per-request limit, seconds (httpx.Timeout(300.0)). */
export const GATEWAY_REQUEST_TIMEOUT_S = 300;
const LOOPBACK = new Set(["localhost", "127.0.0.1", "0.0.0.0", "[::1]", "::1"]);
const CARD_PATH = ".well-known/agent-card.json";

export interface ProxiedRequest {
  role: string;
  method: string;
  path: string;
}

export interface GatewayStandIn {
  /** `http://127.0.0.1:<port>` (no trailing slash); a role's participant URL is `${url}/${role}`. */
  url: string;
  requests: ProxiedRequest[];
  close(): Promise<void>;
}

function rewriteLoopback(raw: string, role: string, base: string): string | undefined {
  let u: URL;
  try {
    u = new URL(raw);
  } catch {
    return undefined;
  }
  if (!["http:", "https:"].includes(u.protocol) || !LOOPBACK.has(u.hostname)) return undefined;
  return `${base}/${role}${u.pathname}${u.search}${u.hash}`;
}

function rewriteCard(body: Buffer, role: string, base: string): Buffer {
  let card: Record<string, unknown>;
  try {
    card = JSON.parse(body.toString("utf8")) as Record<string, unknown>;
  } catch {
    return body;
  }
  let changed = false;
  for (const itf of Array.isArray(card["supportedInterfaces"]) ? (card["supportedInterfaces"] as unknown[]) : []) {
    if (itf === null || typeof itf !== "object") continue;
    const rec = itf as Record<string, unknown>;
    const next = typeof rec["url"] === "string" ? rewriteLoopback(rec["url"], role, base) : undefined;
    if (next && next !== rec["url"]) [rec["url"], changed] = [next, true];
  }
  const next = typeof card["url"] === "string" ? rewriteLoopback(card["url"], role, base) : undefined;
  if (next && next !== card["url"]) [card["url"], changed] = [next, true];
  if (!changed) return body;
  delete card["signatures"];
  return Buffer.from(JSON.stringify(card));
}

/** Start the proxy on loopback with `routes`: role → upstream base URL. */
export async function startGatewayStandIn(routes: Record<string, string>): Promise<GatewayStandIn> {
  const requests: ProxiedRequest[] = [];
  let base = "";
  const server: Server = createServer((req: IncomingMessage, res) => {
    const url = new URL(req.url ?? "/", "http://gateway");
    const [, role = "", ...rest] = url.pathname.split("/");
    const upstream = Object.hasOwn(routes, role) ? routes[role] : undefined;
    if (!upstream) {
      res.writeHead(404).end(`Unknown route: ${role}`);
      return;
    }
    const path = rest.join("/");
    requests.push({ role, method: req.method ?? "GET", path });
    const target = new URL(path ? `${upstream.replace(/\/$/, "")}/${path}` : upstream);
    target.search = url.search;
    const headers = { ...req.headers, host: target.host, "x-gateway-stand-in": "1" };
    const out = httpRequest(
      target,
      { method: req.method, headers, timeout: GATEWAY_REQUEST_TIMEOUT_S * 1000 },
      (up) => {
        const pass = Object.fromEntries(
          Object.entries(up.headers).filter(([k]) => !["content-length", "content-encoding"].includes(k)),
        );
        if (path === CARD_PATH) {
          const chunks: Buffer[] = [];
          up.on("data", (c: Buffer) => chunks.push(c));
          up.on("end", () => {
            res.writeHead(up.statusCode ?? 502, pass).end(rewriteCard(Buffer.concat(chunks), role, base));
          });
          return;
        }
        res.writeHead(up.statusCode ?? 502, pass);
        up.pipe(res);
      },
    );
    out.on("timeout", () => out.destroy(new Error("gateway timeout")));
    out.on("error", () => {
      if (!res.headersSent) res.writeHead(502).end("Bad gateway");
      else res.destroy();
    });
    req.pipe(out);
  });
  await new Promise<void>((r) => server.listen(0, "127.0.0.1", () => r()));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return {
    url: base,
    requests,
    close: () =>
      new Promise<void>((r) => {
        server.closeAllConnections();
        server.close(() => r());
      }),
  };
}
