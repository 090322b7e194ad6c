/**
 * The agent card's answers, kept. The SDK's card handler converts the card
 * (to the 0.3 shape for header-less requests), serialises it and hashes it for
 * its ETag on every GET, although the card changes at most once (the green
 * agent's isolation sentence). Here its first 200 answer per requested version
 * (the `A2A-Version` header, which picks the shape) and card revision is
 * recorded — status, headers, bytes — and replayed, with the same conditional
 * GET answer the SDK gives (`req.fresh` → 304). Anything but a plain 200 GET
 * goes to the SDK's handler every time. Transport only.
 */
import type { NextFunction, Request, RequestHandler, Response } from "express";

interface Kept {
  revision: unknown;
  headers: Record<string, number | string | string[]>;
  body: Buffer;
}

/** `handler` (the SDK's card handler) with its plain 200 GET answers replayed until `revision()` changes. */
export function cachedCard(handler: RequestHandler, revision: () => unknown): RequestHandler {
  const kept = new Map<string, Kept>();
  return (req: Request, res: Response, next: NextFunction) => {
    if (req.method !== "GET" || (req.path !== "/" && req.path !== "")) return handler(req, res, next);
    const key = req.header("A2A-Version") ?? "";
    const hit = kept.get(key);
    if (hit && hit.revision === revision()) {
      for (const [name, value] of Object.entries(hit.headers)) res.setHeader(name, value);
      if (req.fresh) {
        res.status(304).end();
        return;
      }
      res.status(200).end(hit.body);
      return;
    }
    const rev = revision();
    const end = res.end.bind(res) as (...args: unknown[]) => Response;
    res.end = ((...args: unknown[]) => {
      const chunk = args[0];
      if (res.statusCode === 200 && (Buffer.isBuffer(chunk) || typeof chunk === "string")) {
        const headers = { ...res.getHeaders() } as Record<string, number | string | string[]>;
        kept.set(key, { revision: rev, headers, body: Buffer.isBuffer(chunk) ? chunk : Buffer.from(chunk) });
      }
      return end(...args);
    }) as Response["end"];
    return handler(req, res, next);
  };
}
