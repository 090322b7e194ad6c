/**
 * The thin Express adapter shared by the green and purple agents: it mounts the
 * SDK's agent-card and JSON-RPC handlers (both wire versions through
 * `legacyCompat` on ONE endpoint), stamps an `A2A-Version` header on every
 * response, and lets the caller add plain routes (e.g. `/health`). No protocol
 * logic lives here (style: protocol apart from transport).
 */
import express, { type Express, type Request, type Response, type NextFunction } from "express";
import { AGENT_CARD_PATH, type AgentCard } from "@a2a-js/sdk";
import type { AgentExecutor } from "@a2a-js/sdk/server";
import { agentCardHandler, jsonRpcHandler, UserBuilder } from "@a2a-js/sdk/server/express";
import type { Logger } from "../util/logger.js";
import { errorMessage } from "../util/errors.js";
import { bearerMatches, withBearerSecurity } from "./bearer-auth.js";
import { DEFAULT_MAX_BODY_BYTES, jsonBodyWithLimit } from "./body-limit.js";
import { ParamGuardRequestHandler, type AdmitNewTask } from "./param-guard.js";
import { BlockingSendAwareRequestHandler } from "./blocking-send.js";
import { BoundedTaskStore } from "./task-store.js";

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
   * When set, JSON-RPC requests need `Authorization: Bearer <authToken>` (else 401);
   * the card (public) advertises the scheme. Default: no authentication.
   */
  authToken?: string;
  /** Finished tasks kept for `tasks/get` (oldest dropped first). Default 1000 (task-store.ts). */
  maxFinishedTasks?: number;
  /** Called before a new task is accepted; throws the JSON-RPC error to answer instead (e.g. queue full). */
  admitNewTask?: AdmitNewTask;
}

/** The version the request negotiated: "1.0" when it asked for 1.x, else the legacy one. */
export function responseVersion(requested: string | undefined): string {
  return requested && requested.startsWith("1") ? requested : LEGACY_RESPONSE_VERSION;
}

/** Build the Express app for an agent. Never listens (see serve.ts). */
export function createA2AExpressApp(options: A2AAppOptions): Express {
  const card = options.authToken ? withBearerSecurity(options.card) : options.card;
  const requestHandler = new ParamGuardRequestHandler(
    new BlockingSendAwareRequestHandler(card, new BoundedTaskStore(options.maxFinishedTasks), options.executor),
    options.admitNewTask,
  );
  const app = express();
  app.disable("x-powered-by");
  app.use((req: Request, res: Response, next: NextFunction) => {
    res.setHeader("A2A-Version", responseVersion(req.header("A2A-Version")));
    next();
  });
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
  const legacyCompat = { enabled: true };
  app.use(`/${AGENT_CARD_PATH}`, agentCardHandler({ agentCardProvider: requestHandler, legacyCompat }));
  const token = options.authToken;
  if (token) {
    app.post("/", (req: Request, res: Response, next: NextFunction) => {
      if (bearerMatches(req.header("authorization"), token)) return next();
      res.setHeader("WWW-Authenticate", 'Bearer realm="a2a"');
      res.status(401).json({ jsonrpc: "2.0", id: null, error: { code: -32600, message: "Unauthorized: send Authorization: Bearer <token>" } });
    });
  }
  app.post("/", ...jsonBodyWithLimit(options.maxBodyBytes ?? DEFAULT_MAX_BODY_BYTES));
  app.use("/", jsonRpcHandler({ requestHandler, userBuilder: UserBuilder.noAuthentication, legacyCompat }));
  // Last-resort handler: an error escaping a route becomes a JSON-RPC error, never an HTML 500 page.
  app.use((err: unknown, req: Request, res: Response, _next: NextFunction) => {
    options.logger.error({ err: errorMessage(err), path: req.path }, "request failed");
    if (res.headersSent) {
      res.end();
      return;
    }
    res.status(400).json({ jsonrpc: "2.0", id: null, error: { code: -32600, message: errorMessage(err) } });
  });
  return app;
}
