/**
 * A lean `fetch` for the participant's hot path: one request on node's own `http`/`https` client with
 * a keep-alive agent, answered as a WHATWG `Response`, so the SDK's transports (JSON-RPC and REST,
 * blocking and streaming) read it as they read `fetch`'s.
 *
 * Why: measured in this process, the global `fetch` (undici's WHATWG layer: a Request object, header
 * guards, its body machinery) spends about twice the CPU per A2A request of node's `http.request` on
 * the same bytes, and a run asks one request per item on the same cores as the sandbox. What the
 * runner relies on is kept:
 * - the caller's `signal` ends the request (and a body being read) with the signal's reason, as
 *   `fetch` rejects;
 * - no redirect is followed: with `redirect: "manual"` a redirect is returned as it is, otherwise
 *   (`"error"`, and the default here) it is a network error, so a 307/308 never re-posts a task anywhere;
 * - the body is decoded as `fetch` decodes it (`Content-Encoding` gzip, deflate, br, in the order
 *   applied), so the reply cap (reply-limit.ts) counts decoded bytes;
 * - a failed connection rejects with a `TypeError("fetch failed")` whose `cause` is the socket error, as
 *   `fetch`'s does.
 */
import http from "node:http";
import https from "node:https";
import { Readable } from "node:stream";
import zlib from "node:zlib";

const agents = {
  "http:": new http.Agent({ keepAlive: true }),
  "https:": new https.Agent({ keepAlive: true }),
};

const REDIRECTS = new Set([301, 302, 303, 307, 308]);
/** Statuses whose Response carries no body (the constructor refuses one). */
const NULL_BODY = new Set([101, 103, 204, 205, 304]);

/** What `fetch` rejects with on an aborted signal: its reason (an abort without one gives an AbortError). */
function abortReason(signal: AbortSignal): Error {
  const reason: unknown = signal.reason;
  return reason instanceof Error ? reason : new DOMException("This operation was aborted", "AbortError");
}

function fetchFailed(cause: unknown): TypeError {
  return new TypeError("fetch failed", { cause });
}

function plainHeaders(init: RequestInit["headers"]): Record<string, string> {
  if (init === undefined) return {};
  if (init instanceof Headers || Array.isArray(init)) return Object.fromEntries(new Headers(init));
  return { ...(init as Record<string, string>) };
}

/** The decoders of `encoding` (a Content-Encoding value), in the order they undo it; null if one is unknown. */
function decoders(encoding: string | undefined): NodeJS.ReadWriteStream[] | null {
  if (!encoding) return [];
  const codings = encoding
    .toLowerCase()
    .split(",")
    .map((c) => c.trim())
    .filter((c) => c !== "" && c !== "identity")
    .reverse();
  const out: NodeJS.ReadWriteStream[] = [];
  for (const c of codings) {
    if (c === "gzip" || c === "x-gzip") out.push(zlib.createGunzip({ finishFlush: zlib.constants.Z_SYNC_FLUSH }));
    else if (c === "deflate") out.push(zlib.createInflate({ finishFlush: zlib.constants.Z_SYNC_FLUSH }));
    else if (c === "br") out.push(zlib.createBrotliDecompress({ finishFlush: zlib.constants.BROTLI_OPERATION_FLUSH }));
    else return null;
  }
  return out;
}

/** `res`'s body, decoded, as a web stream; errors of any stage error the stream. */
function bodyOf(res: http.IncomingMessage): ReadableStream<Uint8Array> {
  const stages = decoders(res.headers["content-encoding"]);
  if (!stages || stages.length === 0) return Readable.toWeb(res) as ReadableStream<Uint8Array>;
  let source: NodeJS.ReadableStream = res;
  for (const stage of stages) {
    const prev = source;
    prev.on("error", (err: Error) => (stage as unknown as Readable).destroy(err));
    source = prev.pipe(stage);
  }
  return Readable.toWeb(source as Readable) as ReadableStream<Uint8Array>;
}

function responseHeaders(raw: readonly string[]): Headers {
  const headers = new Headers();
  for (let i = 0; i + 1 < raw.length; i += 2) headers.append(raw[i]!, raw[i + 1]!);
  return headers;
}

/** See the module note. Accepts a URL or string (not a `Request`) and a string or byte body. */
export async function httpFetch(input: string | URL | Request, init: RequestInit = {}): Promise<Response> {
  if (input instanceof Request) return fetch(input, init);
  const url = typeof input === "string" ? new URL(input) : input;
  const agent = agents[url.protocol as keyof typeof agents];
  if (!agent) throw fetchFailed(new Error(`unsupported protocol ${url.protocol}`));
  const signal = init.signal ?? undefined;
  if (signal?.aborted) throw abortReason(signal);
  const body = init.body;
  if (body !== undefined && body !== null && typeof body !== "string" && !(body instanceof Uint8Array)) {
    return fetch(input, init);
  }
  const headers = plainHeaders(init.headers);
  if (body !== undefined && body !== null) headers["content-length"] = String(Buffer.byteLength(body));
  const request = (url.protocol === "https:" ? https : http).request(url, {
    method: init.method ?? "GET",
    headers,
    agent,
  });
  return new Promise<Response>((resolve, reject) => {
    let settled = false;
    let incoming: http.IncomingMessage | undefined;
    const onAbort = (): void => {
      const reason = abortReason(signal!);
      request.destroy();
      incoming?.destroy(reason);
      if (!settled) {
        settled = true;
        reject(reason);
      }
    };
    const done = (): void => signal?.removeEventListener("abort", onAbort);
    signal?.addEventListener("abort", onAbort, { once: true });
    request.on("error", (err) => {
      done();
      if (!settled) {
        settled = true;
        reject(fetchFailed(err));
      }
    });
    request.on("response", (res) => {
      incoming = res;
      res.on("close", done);
      const status = res.statusCode ?? 0;
      if (REDIRECTS.has(status) && res.headers.location !== undefined && init.redirect !== "manual") {
        settled = true;
        res.resume();
        done();
        reject(fetchFailed(new Error("unexpected redirect")));
        return;
      }
      try {
        const response = new Response(NULL_BODY.has(status) ? null : bodyOf(res), {
          status,
          statusText: res.statusMessage ?? "",
          headers: responseHeaders(res.rawHeaders),
        });
        if (NULL_BODY.has(status)) res.resume();
        settled = true;
        resolve(response);
      } catch (err) {
        settled = true;
        res.destroy();
        done();
        reject(fetchFailed(err));
      }
    });
    request.end(body ?? undefined);
  });
}
