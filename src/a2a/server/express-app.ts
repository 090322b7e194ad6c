/**
 * The thin Express adapter shared by the green and purple agents: it mounts the
 * SDK's agent-card, JSON-RPC and HTTP+JSON (REST) handlers (both wire versions
 * through `legacyCompat`), stamps an `A2A-Version` header on every response,
 * and lets the caller add plain routes (e.g. `/health`). Unary JSON-RPC calls
 * reach the SDK's JSON-RPC transport handlers without its Express router
 * (jsonrpc-unary.ts), their common case before Express itself
 * (jsonrpc-front-door.ts); streams go through the SDK's handler. No protocol logic
 * lives here (style: protocol apart from transport).
 *
 * Layout, all on the agent's base URL (the card lists it once per binding):
 * - `GET /.well-known/agent-card.json` and the plain routes: public.
 * - `POST /`: JSON-RPC (A2A JSON-RPC binding).
 * - `POST /message:send`, `POST /message:stream`, `GET /tasks/{id}`,
 *   `POST /tasks/{id}:cancel`, `GET|POST /tasks/{id}:subscribe`, `GET /tasks`, ...:
 *   the A2A 1.0 HTTP+JSON binding (request header `A2A-Version: 1.0`); the 0.3
 *   REST paths (`/v1/message:send`, ...) answer header-less / `0.3` requests.
 * Everything past the public routes goes through the same stack on both
 * bindings: bearer authentication (when set), then the body-size limit, then
 * the SDK handler over the same parameter-guarded request handler.
 * Three protocol decisions are applied here but made elsewhere: the JSON-RPC
 * envelope check (jsonrpc-envelope.ts), the version of a request without the
 * header (wire-version.ts: the `A2A-Version` request parameter, or a 1.0
 * JSON-RPC method name), and 1.0 REST errors as RFC 9457 problem details (rest-problem.ts).
 */
import type { IncomingMessage, ServerResponse } from "node:http";
import express, { type Express, type Request, type Response, type NextFunction } from "express";
import { AGENT_CARD_PATH, type AgentCard } from "@a2a-js/sdk";
import type { A2ARequestHandler, AgentExecutor } from "@a2a-js/sdk/server";
import { agentCardHandler, jsonRpcHandler, restHandler, UserBuilder } from "@a2a-js/sdk/server/express";
import type { Logger } from "../../util/logger.js";
import { errorMessage } from "../../util/errors.js";
import { bearerMatches, withBearerSecurity } from "./bearer-auth.js";
import { DEFAULT_MAX_BODY_BYTES, jsonBodyWithLimit, restErrorBody } from "./body-limit.js";
import { ParamGuardRequestHandler, type AdmitNewTask } from "./param-guard.js";
import { BlockingSendAwareRequestHandler } from "./blocking-send.js";
import { BoundedTaskStore } from "./task-store.js";
import { envelopeProblem, invalidRequestResponse } from "./jsonrpc-envelope.js";
import { requestVersion, VERSION_PARAMETER } from "./wire-version.js";
import { PROBLEM_CONTENT_TYPE, toProblemDetails } from "./rest-problem.js";
import { cachedCard } from "./card-cache.js";
import { unaryAnswer, unaryJsonRpc } from "./jsonrpc-unary.js";
import { withJsonRpcFrontDoor, type FrontDoorOptions } from "./jsonrpc-front-door.js";
import { writeJson } from "./json-response.js";

/** Version stamped on responses to header-less / 0.3 requests (smi_bench sends "0.3.0"). */
export const LEGACY_RESPONSE_VERSION = "0.3.0";

/** A plain JSON GET route next to the A2A endpoints. */
export interface JsonRoute {
  path: string;
  /** Returns the HTTP status and JSON body. */
  handle(): Promise<{ status: number; body: unknown }> | { status: number; body: unknown };
}

export interface A2AAppOptions {
  card: AgentCard;
  executor: AgentExecutor;
  logger: Logger;
  routes?: JsonRoute[];
  /** Largest accepted JSON-RPC body, bytes; larger ones get HTTP 413. Default {@link DEFAULT_MAX_BODY_BYTES}. */
  maxBodyBytes?: number;
  /**
   * When set, every request but the card and the plain routes (JSON-RPC and
   * REST alike) needs `Authorization: Bearer <authToken>` (else 401); the card
   * (public) advertises the scheme. Default: no authentication.
   */
  authToken?: string;
  /** Finished tasks kept for `tasks/get` (oldest dropped first). Default 1000 (task-store.ts). */
  maxFinishedTasks?: number;
  /** Called before a new task is accepted; throws the JSON-RPC error to answer instead (e.g. queue full). */
  admitNewTask?: AdmitNewTask;
  /**
   * Receives the card object the app serves (a copy of `card`, with the bearer scheme when `authToken`
   * is set). Its `description` may be changed later (the green agent adds the isolation probe's answer);
   * the card's cached answers follow (card-cache.ts). Nothing else of it may change.
   */
  onCard?: (card: AgentCard) => void;
  /** Receives the request handler behind both bindings, for another binding to share (grpc-server.ts). */
  onRequestHandler?: (handler: A2ARequestHandler) => void;
  /**
   * Answer the JSON-RPC endpoint's common case before Express (jsonrpc-front-door.ts). Default true; false
   * sends every request through the Express route (tests compare the two).
   */
  frontDoor?: boolean;
}

/** The version the request negotiated: "1.0" when it asked for 1.x, else the legacy one. */
export function responseVersion(requested: string | undefined): string {
  return requested && requested.startsWith("1") ? requested : LEGACY_RESPONSE_VERSION;
}

/** Build the Express app for an agent. Never listens (see serve.ts). */
export function createA2AExpressApp(options: A2AAppOptions): Express {
  const card = options.authToken ? withBearerSecurity(options.card) : { ...options.card };
  options.onCard?.(card);
  const requestHandler = new ParamGuardRequestHandler(
    new BlockingSendAwareRequestHandler(card, new BoundedTaskStore(options.maxFinishedTasks), options.executor),
    options.admitNewTask,
  );
  options.onRequestHandler?.(requestHandler);
  const app = express();
  app.disable("x-powered-by");
  const plainPaths = new Set((options.routes ?? []).map((r) => r.path));
  app.use((req: Request, res: Response, next: NextFunction) => {
    const v1Rest = isV1RestPath(req, plainPaths);
    const header = req.header("A2A-Version");
    // Express parses the query string on each `req.query` read: only when there is one.
    const asked = requestVersion(header, req.url.includes("?") ? req.query[VERSION_PARAMETER] : undefined);
    // The SDK (card, JSON-RPC and REST handlers) reads the version from this header alone.
    if (asked && !header) req.headers["a2a-version"] = asked;
    const requested = asked ?? (v1Rest ? "1.0" : undefined);
    res.setHeader("A2A-Version", responseVersion(requested));
    if (v1Rest) answerErrorsAsProblems(res);
    next();
  });
  const token = options.authToken;
  const requireBearer = token
    ? (req: Request, res: Response, next: NextFunction) => {
        if (bearerMatches(req.header("authorization"), token)) return next();
        const message = "Unauthorized: send Authorization: Bearer <token>";
        res.setHeader("WWW-Authenticate", 'Bearer realm="a2a"');
        if (isJsonRpcCall(req)) res.status(401).json({ jsonrpc: "2.0", id: null, error: { code: -32600, message } });
        else res.status(401).json(restErrorBody(401, "UNAUTHENTICATED", message));
      }
    : undefined;
  const maxBodyBytes = options.maxBodyBytes ?? DEFAULT_MAX_BODY_BYTES;
  const userBuilder = UserBuilder.noAuthentication;
  const legacyCompat = { enabled: true };
  const answer = unaryAnswer({ requestHandler, userBuilder, logger: options.logger });
  // JSON-RPC first: the busiest route is matched before the public GET routes (whose paths it never shares).
  app.post(
    "/",
    ...(requireBearer ? [requireBearer] : []),
    ...jsonBodyWithLimit(maxBodyBytes, "jsonrpc"),
    jsonRpcEnvelope,
    // Unary calls straight to the SDK's transport handlers; streams through its Express handler.
    unaryJsonRpc(answer),
    jsonRpcHandler({ requestHandler, userBuilder, legacyCompat }),
  );
  for (const route of options.routes ?? []) {
    app.get(route.path, async (_req: Request, res: Response) => {
      try {
        const { status, body } = await route.handle();
        res.status(status).json(body);
      } catch (err) {
        options.logger.error({ err: errorMessage(err), route: route.path }, "route failed");
        res.status(503).json({ status: "degraded", error: errorMessage(err) });
      }
    });
  }
  app.use(
    `/${AGENT_CARD_PATH}`,
    cachedCard(agentCardHandler({ agentCardProvider: requestHandler, legacyCompat }), () => card.description),
  );
  // Past this point nothing is public: REST, unknown paths alike (JSON-RPC checked the same way above).
  if (requireBearer) app.use(requireBearer);
  app.use(...jsonBodyWithLimit(maxBodyBytes, "rest"), restHandler({ requestHandler, userBuilder, legacyCompat }));
  app.use((req: Request, res: Response) => {
    res.status(404).json(restErrorBody(404, "NOT_FOUND", `no A2A route ${req.method} ${req.path}`));
  });
  // Last-resort handler: an error escaping a route becomes an error body of its binding, never an HTML 500 page.
  app.use((err: unknown, req: Request, res: Response, _next: NextFunction) => {
    options.logger.error({ err: errorMessage(err), path: req.path }, "request failed");
    if (res.headersSent) {
      res.end();
      return;
    }
    if (isJsonRpcCall(req))
      res.status(400).json({ jsonrpc: "2.0", id: null, error: { code: -32600, message: errorMessage(err) } });
    else res.status(400).json(restErrorBody(400, "INVALID_ARGUMENT", errorMessage(err)));
  });
  if (options.frontDoor !== false)
    putFrontDoor(app, { maxBodyBytes, ...(token !== undefined ? { authToken: token } : {}), answer, responseVersion });
  return app;
}

/**
 * Put the JSON-RPC front door (jsonrpc-front-door.ts) before the app: Express's app function, which node
 * calls for each request, calls `app.handle(req, res, next)`; a request it does not take goes on to that
 * handle. As a sub-app (a `next` given), the app is Express's alone.
 */
function putFrontDoor(app: Express, options: FrontDoorOptions): void {
  const handle = (app as unknown as ExpressHandle).handle.bind(app);
  const front = withJsonRpcFrontDoor(options, (req, res) => handle(req, res));
  (app as unknown as ExpressHandle).handle = (req, res, next) => (next ? handle(req, res, next) : front(req, res));
}

/** Express's request entry point (`app.handle`), which its app function calls. */
interface ExpressHandle {
  handle(req: IncomingMessage, res: ServerResponse, next?: (err?: unknown) => void): void;
}

/**
 * Before the SDK's JSON-RPC handler: an invalid envelope gets -32600, and a
 * header-less call naming a 1.0 method is routed (and answered) as 1.0. A body
 * the JSON parser left alone (not application/json) goes on to the SDK, which
 * answers -32005.
 */
function jsonRpcEnvelope(req: Request, res: Response, next: NextFunction): void {
  res.json = leanJson;
  const body: unknown = req.body;
  if (body === undefined) return next();
  const problem = envelopeProblem(body);
  if (problem) {
    res.status(200).json(invalidRequestResponse(body, problem));
    return;
  }
  const header = req.header("A2A-Version");
  const version = requestVersion(header, undefined, (body as { method?: unknown }).method);
  if (version && !header) {
    // The SDK picks its 0.3 or 1.0 handler from this header alone.
    req.headers["a2a-version"] = version;
    res.setHeader("A2A-Version", responseVersion(version));
  }
  next();
}

/**
 * `res.json` for JSON-RPC answers: json-response.ts's `writeJson` (Express's bytes and headers minus the
 * ETag), so the route answers as the front door does. A method (not a closure per request): Express calls it
 * on the response.
 */
function leanJson(this: Response, body: unknown): Response {
  writeJson(this, this.statusCode, body);
  return this;
}

/** Error bodies (status >= 400) written through `res.json` go out as RFC 9457 problem details. */
function answerErrorsAsProblems(res: Response): void {
  const json = res.json.bind(res);
  res.json = (body: unknown) => {
    if (res.statusCode < 400) return json(body);
    const { status, problem } = toProblemDetails(res.statusCode, body);
    res.status(status).setHeader("Content-Type", PROBLEM_CONTENT_TYPE);
    return json(problem);
  };
}

/** A 1.0 HTTP+JSON route (answers in 1.0 whatever the header): not the card, JSON-RPC, a plain route or a 0.3 `/v1/` path. */
function isV1RestPath(req: Request, plainPaths: ReadonlySet<string>): boolean {
  return (
    !isJsonRpcCall(req) &&
    !req.path.startsWith("/v1/") &&
    !req.path.startsWith("/.well-known/") &&
    !plainPaths.has(req.path)
  );
}

/** The JSON-RPC endpoint is `POST /`; every other request belongs to the REST binding. */
function isJsonRpcCall(req: Request): boolean {
  return req.method === "POST" && req.path === "/";
}
