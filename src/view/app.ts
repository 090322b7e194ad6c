/**
 * The viewer's HTTP front: createViewApp(options) returns a request listener
 * and never listens (src/cli/view.ts does). GET only. The page, its two
 * assets, the JSON API (view-api.ts) and the run files themselves (`/raw`,
 * only files inside a viewed run directory, as text/plain).
 *
 * Every response carries a strict Content-Security-Policy, nosniff and no
 * referrer. Requests whose Host is not the viewer's own name are refused: a
 * web page the user visits cannot reach the viewer by rebinding its own DNS
 * name to the viewer's address. On loopback the names are the loopback
 * names; beyond it (`--host 0.0.0.0`), also any IP address literal and this
 * machine's host name — never another DNS name, which is what rebinding uses.
 */
import { isIP } from "node:net";
import type { FileHandle } from "node:fs/promises";
import type { IncomingMessage, ServerResponse } from "node:http";
import { answerApi } from "./view-api.js";
import { PAGE_CSP, RAW_CSP, loadAssets, shellHtml, type StaticAssets } from "./page.js";
import { findRun } from "./run-dirs.js";
import { openRunFileSafely, ViewPathError } from "./safe-path.js";
import { errorMessage } from "../util/errors.js";

export interface ViewAppOptions {
  /** Run directories, or directories holding runs. */
  dirs: readonly string[];
  /**
   * Host names (without port) accepted in the Host header. Default: loopback names.
   */
  allowedHosts?: readonly string[];
  /** Also accept any IP address literal as Host (the viewer listens beyond loopback). Default false. */
  allowIpHosts?: boolean;
  /** The browser code and style (default: read from the package once). */
  assets?: StaticAssets;
}

/** Names a loopback viewer answers to. */
export const LOOPBACK_HOSTS = ["127.0.0.1", "localhost", "[::1]", "::1"];

/**
 * The Host names a viewer listening on `host` answers to: the loopback names
 * on loopback; beyond it, also IP literals, this machine's name (`machine`,
 * and its first label) and `host` itself.
 */
export function hostPolicy(host: string, machine: string): Pick<ViewAppOptions, "allowedHosts" | "allowIpHosts"> {
  if (LOOPBACK_HOSTS.includes(host)) return { allowedHosts: LOOPBACK_HOSTS, allowIpHosts: false };
  const names = new Set([...LOOPBACK_HOSTS, machine, machine.split(".")[0]!, host].map((n) => n.toLowerCase()));
  return { allowedHosts: [...names].filter((n) => n !== ""), allowIpHosts: true };
}

export type ViewApp = (req: IncomingMessage, res: ServerResponse) => void;

function send(res: ServerResponse, status: number, type: string, body: string | Buffer, csp = PAGE_CSP): void {
  res.writeHead(status, {
    "content-type": type,
    "content-security-policy": csp,
    "x-content-type-options": "nosniff",
    "referrer-policy": "no-referrer",
    "cross-origin-resource-policy": "same-origin",
    "cache-control": "no-store",
    "content-length": Buffer.byteLength(body),
  });
  res.end(body);
}

const sendJson = (res: ServerResponse, status: number, body: unknown): void =>
  send(res, status, "application/json; charset=utf-8", JSON.stringify(body));

function hostAllowed(req: IncomingMessage, allowed: readonly string[], ip: boolean): boolean {
  const host = (req.headers.host ?? "").toLowerCase().replace(/:\d+$/, "");
  if (allowed.includes(host)) return true;
  return ip && isIP(host.replace(/^\[(.*)\]$/, "$1")) !== 0;
}

/** `/raw?run=KEY&path=REL`: a file of the run, as plain text, never rendered. */
async function sendRaw(res: ServerResponse, dirs: readonly string[], q: URLSearchParams): Promise<void> {
  const ref = await findRun(dirs, q.get("run") ?? "");
  if (!ref) return sendJson(res, 404, { error: "no such run" });
  let handle: FileHandle;
  try {
    handle = await openRunFileSafely(ref.dir, q.get("path") ?? "");
  } catch (err) {
    if (err instanceof ViewPathError) return sendJson(res, err.status, { error: err.message });
    throw err;
  }
  res.writeHead(200, {
    "content-type": "text/plain; charset=utf-8",
    "content-security-policy": RAW_CSP,
    "x-content-type-options": "nosniff",
    "referrer-policy": "no-referrer",
    "cache-control": "no-store",
  });
  const stream = handle.createReadStream();
  stream.on("error", () => res.destroy());
  res.on("close", () => stream.destroy());
  stream.pipe(res);
}

async function route(req: IncomingMessage, res: ServerResponse, o: Required<ViewAppOptions>): Promise<void> {
  if (!hostAllowed(req, o.allowedHosts, o.allowIpHosts))
    return send(
      res,
      403,
      "text/plain; charset=utf-8",
      `unknown Host: this viewer answers to ${[...o.allowedHosts, ...(o.allowIpHosts ? ["an IP address"] : [])].join(", ")}\n`,
    );
  if (req.method !== "GET" && req.method !== "HEAD") return send(res, 405, "text/plain; charset=utf-8", "only GET\n");
  const url = new URL(req.url ?? "/", "http://viewer.invalid");
  switch (url.pathname) {
    case "/":
      return send(res, 200, "text/html; charset=utf-8", shellHtml());
    case "/assets/view.js":
      return send(res, 200, "text/javascript; charset=utf-8", o.assets.script);
    case "/assets/view.css":
      return send(res, 200, "text/css; charset=utf-8", o.assets.style);
    case "/favicon.ico":
      res.writeHead(204, { "content-security-policy": PAGE_CSP }).end();
      return;
    case "/raw":
      return sendRaw(res, o.dirs, url.searchParams);
  }
  if (url.pathname.startsWith("/api/")) {
    const answer = await answerApi(o.dirs, url.pathname, url.searchParams);
    return sendJson(res, answer.status, answer.body);
  }
  send(res, 404, "text/plain; charset=utf-8", "not found\n");
}

/** The viewer over the runs under `options.dirs`; see the module note. */
export function createViewApp(options: ViewAppOptions): ViewApp {
  const o: Required<ViewAppOptions> = {
    dirs: [...options.dirs],
    allowedHosts: (options.allowedHosts ?? LOOPBACK_HOSTS).map((n) => n.toLowerCase()),
    allowIpHosts: options.allowIpHosts ?? false,
    assets: options.assets ?? loadAssets(),
  };
  return (req, res) => {
    route(req, res, o).catch((err: unknown) => {
      if (!res.headersSent) sendJson(res, 500, { error: errorMessage(err) });
      else res.destroy();
    });
  };
}
