/**
 * One JSON answer written with node's own response API: the bytes and headers
 * Express's `res.json` writes (the body, `Content-Type: application/json;
 * charset=utf-8` unless one is set, `Content-Length`) minus the ETag, which
 * Express hashes from every body although an answer to a POST is never
 * revalidated (`req.fresh` is false for POST). Written as one string. Used by
 * the JSON-RPC endpoint on both of its paths (the front door and the Express
 * route), so their answers are the same bytes. Transport only.
 */
import type { IncomingMessage, ServerResponse } from "node:http";

export const JSON_CONTENT_TYPE = "application/json; charset=utf-8";

/** Write `body` as the whole answer with HTTP `status`. */
export function writeJson(res: ServerResponse, status: number, body: unknown): void {
  const text = JSON.stringify(body) ?? "";
  res.statusCode = status;
  if (!res.hasHeader("Content-Type")) res.setHeader("Content-Type", JSON_CONTENT_TYPE);
  res.setHeader("Content-Length", Buffer.byteLength(text));
  res.end(text);
}

/** A request header by any spelling of its name, as node parsed it and Express's `req.header` reads it. */
export function headerOf(req: IncomingMessage, name: string): string | undefined {
  const v = req.headers[name.toLowerCase()];
  return typeof v === "string" ? v : undefined;
}
