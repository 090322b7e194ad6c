/**
 * The JSON-RPC endpoint's common case, answered before Express: a unary call
 * (`message/send`, `tasks/get`, `SendMessage`, ...) POSTed to `/` with a plain
 * `application/json` body. Express's own per-request work — the request and
 * response objects' prototypes swapped, its router walking the app's layers,
 * the version middleware and the route's chain of handlers — cost more CPU per
 * call than the A2A work itself (a bare node `http` echo served 3–4× the
 * requests of a bare Express echo on the same core; docs/performance-serving.md).
 *
 * What is taken here is answered exactly as the Express route answers it (the
 * same steps, from the same modules): bearer check (a request without the right
 * token is left to Express, which answers 401), the body read and parsed once
 * with the byte limit (json-body.ts), the envelope check (jsonrpc-envelope.ts),
 * the version the call is served as (wire-version.ts) stamped on the request
 * for the SDK and on the response, then the SDK's transport handlers
 * (jsonrpc-unary.ts). Everything else goes to Express untouched: other methods
 * and paths, a query string, another media type or encoding. A body read here
 * whose call is not unary (a streaming method, an invalid envelope), or whose
 * read failed, goes to Express with what was read ({@link preRead}), so those
 * answers stay the Express route's own. tests/a2a/server/jsonrpc-front-door.test.ts
 * holds both paths' answers equal, byte for byte. Transport only.
 */
import type { IncomingMessage, ServerResponse } from "node:http";
import { bearerMatches } from "./bearer-auth.js";
import { envelopeProblem } from "./jsonrpc-envelope.js";
import { isPlainJsonBody, readJsonBody } from "./json-body.js";
import { headerOf } from "./json-response.js";
import { isUnaryCall, type UnaryAnswer } from "./jsonrpc-unary.js";
import { requestVersion } from "./wire-version.js";

/** What the front door read of a request it then handed to Express: the parsed body, or why reading failed. */
export type PreRead = { body: unknown } | { error: unknown };

const PRE_READ = Symbol("a2a-bench.jsonRpcPreRead");

/** What the front door read of this request (undefined when it read nothing): the Express route's body step. */
export function preRead(req: IncomingMessage): PreRead | undefined {
  return (req as IncomingMessage & { [PRE_READ]?: PreRead })[PRE_READ];
}

export interface FrontDoorOptions {
  maxBodyBytes: number;
  /** When set, only a request carrying `Authorization: Bearer <authToken>` is taken (else Express answers 401). */
  authToken?: string;
  /** The unary answer (jsonrpc-unary.ts), the one the Express route uses. */
  answer: UnaryAnswer;
  /** The version stamped on the response for the version a request asked for (express-app.ts). */
  responseVersion: (requested: string | undefined) => string;
}

/** A request listener: the common case here, everything else (and what was read of it) to `express`. */
export function withJsonRpcFrontDoor(
  options: FrontDoorOptions,
  express: (req: IncomingMessage, res: ServerResponse) => void,
): (req: IncomingMessage, res: ServerResponse) => void {
  const { maxBodyBytes, authToken, answer, responseVersion } = options;
  const handOver = (req: IncomingMessage, res: ServerResponse, read: PreRead): void => {
    (req as IncomingMessage & { [PRE_READ]?: PreRead })[PRE_READ] = read;
    express(req, res);
  };
  return (req, res) => {
    if (
      req.method !== "POST" ||
      req.url !== "/" ||
      !isPlainJsonBody(req) ||
      (authToken !== undefined && !bearerMatches(headerOf(req, "authorization"), authToken))
    ) {
      express(req, res);
      return;
    }
    readJsonBody(req, maxBodyBytes).then(
      (body) => {
        try {
          if (!isUnaryCall(body) || envelopeProblem(body) !== undefined) return handOver(req, res, { body });
          const header = headerOf(req, "A2A-Version");
          const version = requestVersion(header, undefined, body.method);
          res.setHeader("A2A-Version", responseVersion(version));
          // The SDK picks its 0.3 or 1.0 handler from this header alone.
          if (version && !header) req.headers["a2a-version"] = version;
          return answer(req, res, body); // never rejects: its errors are answers
        } catch {
          // Nothing above throws for a request node parsed; were it to, the Express route answers, as it would
          // have without the front door (never an unhandled rejection that ends the agent).
          if (!res.headersSent) handOver(req, res, { body });
          else res.destroy();
        }
      },
      (error: unknown) => handOver(req, res, { error }),
    );
  };
}
