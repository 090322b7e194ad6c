/**
 * JSON body parsing with an operator-set size limit, ahead of the SDK's own
 * parsers (whose fixed 100 KB limit answers oversize bodies with a 400). A body
 * over the limit gets HTTP 413; a body that is not JSON gets a parse error.
 * Each binding answers in its own error shape: JSON-RPC bodies (-32700, JSON-RPC
 * 2.0 §5.1 "Parse error") for `POST /`, google.rpc.Status-style
 * `{error:{code,status,message}}` bodies (A2A HTTP+JSON binding) for the REST
 * routes (on the 1.0 paths the Express adapter turns them into RFC 9457 problem
 * objects, rest-problem.ts). Once this parser has read the body, the SDK's
 * parser sees the request finished and skips it. A JSON-RPC body the front door
 * already read (jsonrpc-front-door.ts) is taken as it read it, or its read error.
 */
import express, { type NextFunction, type Request, type RequestHandler, type Response } from "express";
import { BenchError } from "../../util/errors.js";
import { isPlainJsonBody, readJsonBody } from "./json-body.js";
import { preRead } from "./jsonrpc-front-door.js";

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

/** The wire binding whose error shape a refused body gets. */
export type BodyBinding = "jsonrpc" | "rest";

/** Media types the REST binding reads as JSON (A2A HTTP+JSON: `application/json`, `application/a2a+json`). */
export const REST_JSON_TYPES = ["application/json", "application/a2a+json"];

/**
 * A REST (HTTP+JSON binding) error body: google.rpc.Status-style, as the SDK's REST handler writes them
 * (the 0.3 paths send it as it is; the 1.0 paths as a problem object carrying it, rest-problem.ts).
 */
export function restErrorBody(httpStatus: number, status: string, message: string): unknown {
  return { error: { code: httpStatus, status, message, details: [] } };
}

/** express.json with `limitBytes`, and its errors turned into `binding`'s errors (413 for size). */
export function jsonBodyWithLimit(limitBytes: number, binding: BodyBinding = "jsonrpc"): RequestHandler[] {
  const bodyParser = express.json({
    limit: limitBytes,
    ...(binding === "rest" ? { type: REST_JSON_TYPES, strict: false } : {}),
  });
  // JSON-RPC: the plain application/json case is read here (json-body.ts), everything else by body-parser.
  const parse: RequestHandler =
    binding === "rest"
      ? bodyParser
      : (req, res, next) => {
          const read = preRead(req);
          if (read) {
            if ("error" in read) return next(read.error);
            req.body = read.body;
            return next();
          }
          if (!isPlainJsonBody(req)) return bodyParser(req, res, next);
          readJsonBody(req, limitBytes).then((body) => {
            req.body = body;
            next();
          }, next);
        };
  const onError = (err: unknown, _req: Request, res: Response, next: NextFunction): void => {
    const e = err as BodyParserError;
    if (e?.type === "entity.too.large") {
      const message = `Request body exceeds the limit of ${limitBytes} bytes`;
      res
        .status(413)
        .json(
          binding === "rest"
            ? restErrorBody(413, "INVALID_ARGUMENT", message)
            : { jsonrpc: "2.0", id: null, error: { code: -32600, message } },
        );
      return;
    }
    if (
      err instanceof SyntaxError ||
      e?.type === "entity.parse.failed" ||
      e?.type === "encoding.unsupported" ||
      e?.type === "charset.unsupported"
    ) {
      if (binding === "rest") res.status(400).json(restErrorBody(400, "INVALID_ARGUMENT", "Invalid JSON payload."));
      else
        res.status(200).json({ jsonrpc: "2.0", id: null, error: { code: -32700, message: "Invalid JSON payload." } });
      return;
    }
    next(err);
  };
  return [parse, onError as unknown as RequestHandler];
}
