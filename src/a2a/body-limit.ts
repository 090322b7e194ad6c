/**
 * JSON body parsing with an operator-set size limit, ahead of the SDK's own
 * parser (whose fixed 100 KB limit answers oversize bodies with a 400). A body
 * over the limit gets HTTP 413 with a JSON-RPC error body; a body that is not
 * JSON gets -32700 (JSON-RPC 2.0 §5.1 "Parse error"). Once this parser has
 * read the body, the SDK's parser sees the request finished and skips it.
 */
import express, { type NextFunction, type Request, type RequestHandler, type Response } from "express";
import { BenchError } from "../util/errors.js";

/** Default largest accepted request body, bytes (1 MiB: assessment requests are a few KB). */
export const DEFAULT_MAX_BODY_BYTES = 1_048_576;
/** Env var overriding the limit (both agents; the CLIs' `--max-body-bytes` wins). */
export const MAX_BODY_ENV = "A2A_MAX_BODY_BYTES";

/** Parse a limit given on the command line or in the env; throws E_SETTING naming `source`. */
export function parseMaxBodyBytes(raw: string | undefined, source: string): number | undefined {
  if (raw === undefined || raw === "") return undefined;
  const v = Number(raw);
  if (!/^\d+$/.test(raw) || !Number.isSafeInteger(v) || v < 1) {
    throw new BenchError("E_SETTING", `${source} must be a positive integer number of bytes, got "${raw}"`);
  }
  return v;
}

interface BodyParserError {
  type?: string;
  status?: number;
}

/** express.json with `limitBytes`, and its errors turned into JSON-RPC errors (413 for size). */
export function jsonBodyWithLimit(limitBytes: number): RequestHandler[] {
  const parse = express.json({ limit: limitBytes });
  const onError = (err: unknown, _req: Request, res: Response, next: NextFunction): void => {
    const e = err as BodyParserError;
    if (e?.type === "entity.too.large") {
      res.status(413).json({
        jsonrpc: "2.0",
        id: null,
        error: { code: -32600, message: `Request body exceeds the limit of ${limitBytes} bytes` },
      });
      return;
    }
    if (err instanceof SyntaxError || e?.type === "entity.parse.failed" || e?.type === "encoding.unsupported" || e?.type === "charset.unsupported") {
      res.status(200).json({ jsonrpc: "2.0", id: null, error: { code: -32700, message: "Invalid JSON payload." } });
      return;
    }
    next(err);
  };
  return [parse, onError as unknown as RequestHandler];
}
