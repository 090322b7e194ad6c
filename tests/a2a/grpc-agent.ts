/**
 * Test helpers for the gRPC binding: an agent app served on loopback with its gRPC binding beside it
 * (both ports ephemeral), or a participant that offers ONLY gRPC — its HTTP server answers the agent
 * card and nothing else, so a client that reaches it at all reached it over gRPC.
 */
import { createServer, type RequestListener } from "node:http";
import type { AgentCard } from "@a2a-js/sdk";
import type { A2ARequestHandler } from "@a2a-js/sdk/server";
import { serveApp, type ServedApp } from "../../src/a2a/server/serve.js";
import { listenGrpc, type GrpcServeOptions, type ServedGrpc } from "../../src/a2a/server/grpc-server.js";
import { GRPC_BINDING, cardFromToml } from "../../src/a2a/shared/card.js";
import { silentLogger } from "../../src/util/logger.js";

export interface GrpcAgent {
  /** Base URL of the HTTP server (the card's, and the HTTP bindings' unless `grpcOnly`). */
  url: string;
  http: ServedApp;
  grpc: ServedGrpc;
  /** Requests that reached the HTTP server, `METHOD path`. */
  httpHits: string[];
  close(): Promise<void>;
}

export interface GrpcAgentOptions {
  /** The card lists only the GRPC interfaces and the HTTP server answers only the card (404 else). */
  grpcOnly?: boolean;
  /** The GRPC interface's URL in the card, given the bound port (default `127.0.0.1:<port>`). */
  grpcCardTarget?: (port: number) => string;
  serve?: GrpcServeOptions;
}

/** Serve an app made by `make(card, onRequestHandler)` on 127.0.0.1:0, its gRPC binding on another free port. */
export async function serveGrpcAgent(
  make: (card: AgentCard, onRequestHandler: (h: A2ARequestHandler) => void) => RequestListener,
  options: GrpcAgentOptions = {},
): Promise<GrpcAgent> {
  const grpc = await listenGrpc("127.0.0.1", 0, { logger: silentLogger() });
  const httpHits: string[] = [];
  const http = await serveApp("127.0.0.1", 0, (port) => {
    let card = cardFromToml(
      { name: "grpc-test-agent", url: `http://127.0.0.1:${port}/`, version: "0.0.1", skills: [] },
      { grpcPort: grpc.port },
    );
    if (options.grpcOnly || options.grpcCardTarget) {
      const target = options.grpcCardTarget?.(grpc.port);
      card = {
        ...card,
        supportedInterfaces: card.supportedInterfaces
          .filter((i) => !options.grpcOnly || i.protocolBinding === GRPC_BINDING)
          .map((i) => (i.protocolBinding === GRPC_BINDING && target ? { ...i, url: target } : i)),
      };
    }
    const app = make(card, (h) => grpc.serve(h, options.serve));
    return (req, res) => {
      httpHits.push(`${req.method} ${req.url}`);
      if (options.grpcOnly && !req.url?.startsWith("/.well-known/")) res.writeHead(404).end();
      else app(req, res);
    };
  });
  return {
    url: `http://127.0.0.1:${http.port}/`,
    http,
    grpc,
    httpHits,
    close: async () => {
      await Promise.all([http.close(), grpc.close()]);
    },
  };
}

/** Whether nothing listens on 127.0.0.1:`port` any more (a fresh server can bind it). */
export async function portIsFree(port: number): Promise<boolean> {
  const server = createServer();
  return new Promise<boolean>((resolve) => {
    server.once("error", () => resolve(false));
    server.listen(port, "127.0.0.1", () => server.close(() => resolve(true)));
  });
}
