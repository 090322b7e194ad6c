import type { Express } from "express";
import type { AgentCard } from "@a2a-js/sdk";
import type { A2ARequestHandler } from "@a2a-js/sdk/server";
import type { Solver } from "./solver.js";
import { PurpleExecutor } from "./executor.js";
import { createA2AExpressApp } from "../a2a/server/express-app.js";
import { silentLogger, type Logger } from "../util/logger.js";

export interface PurpleAppOptions {
  card: AgentCard;
  solver: Solver;
  /** Default: a silent logger. */
  logger?: Logger;
  /** Largest JSON-RPC request body, bytes (default 1 MiB; see src/a2a/server/body-limit.ts). */
  maxBodyBytes?: number;
  /** Finished tasks kept for `tasks/get`, oldest dropped first (default 1000; see src/a2a/server/task-store.ts). */
  maxFinishedTasks?: number;
  /** Receives the request handler behind the HTTP bindings (the gRPC binding shares it: grpc-server.ts). */
  onRequestHandler?: (handler: A2ARequestHandler) => void;
}

/** The purple agent's Express app (both A2A wire versions, card, `/health`). Never listens. */
export function createPurpleApp(options: PurpleAppOptions): Express {
  const logger = options.logger ?? silentLogger();
  return createA2AExpressApp({
    card: options.card,
    executor: new PurpleExecutor(options.solver, logger),
    logger,
    ...(options.maxBodyBytes !== undefined ? { maxBodyBytes: options.maxBodyBytes } : {}),
    ...(options.maxFinishedTasks !== undefined ? { maxFinishedTasks: options.maxFinishedTasks } : {}),
    ...(options.onRequestHandler ? { onRequestHandler: options.onRequestHandler } : {}),
    routes: [{ path: "/health", handle: () => ({ status: 200, body: { status: "ok", mode: options.solver.mode } }) }],
  });
}
