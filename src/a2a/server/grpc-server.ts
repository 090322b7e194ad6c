/**
 * The A2A gRPC binding (service `lf.a2a.v1.A2AService` for 1.0, `a2a.v1.A2AService` for 0.3), served beside the JSON-RPC and HTTP+JSON
 * bindings of the Express app on a port of its own (gRPC needs HTTP/2; the Express app speaks
 * HTTP/1.1). The SDK's gRPC service adapter (`@a2a-js/sdk/server/grpc`) answers every call over the
 * same request handler as the HTTP bindings (one task store: a task sent over gRPC can be read over
 * JSON-RPC). No protocol logic lives here: binding, limits, authentication, shutdown.
 * Off unless asked for (`--grpc-port`).
 *
 * Bearer authentication, when set, is the HTTP bindings' rule on gRPC metadata: every call needs
 * `authorization: Bearer <token>` or ends UNAUTHENTICATED. The largest request accepted is the HTTP
 * bindings' body limit (gRPC's RESOURCE_EXHAUSTED beyond it).
 */
import type { A2ARequestHandler } from "@a2a-js/sdk/server";
import type * as Grpc from "@grpc/grpc-js";
import { BenchError } from "../../util/errors.js";
import type { Logger } from "../../util/logger.js";
import { loadGrpc } from "../shared/grpc-module.js";
import { bearerMatches } from "./bearer-auth.js";
import { DEFAULT_MAX_BODY_BYTES } from "./body-limit.js";
import { PortInUseError, portHolderText } from "./port-in-use.js";

/** The flag that moves the gRPC port (named in a port-in-use error). */
export const GRPC_PORT_FLAG = "--grpc-port";

export interface GrpcListenOptions {
  logger: Logger;
  /** Largest request message, bytes; default {@link DEFAULT_MAX_BODY_BYTES}. */
  maxBodyBytes?: number;
}

export interface GrpcServeOptions {
  /** When set, every call needs `authorization: Bearer <authToken>` metadata. */
  authToken?: string | undefined;
}

export interface ServedGrpc {
  host: string;
  /** The bound port (a free one when 0 was asked). */
  port: number;
  /**
   * Answer calls with `requestHandler` (once; calls before it get UNIMPLEMENTED). The port is bound
   * first so that the agent card can name it; the card is served only after this is called.
   */
  serve(requestHandler: A2ARequestHandler, options?: GrpcServeOptions): void;
  /** End the calls in flight and release the port. */
  close(): Promise<void>;
}

/** `host:port` as gRPC names an address (IPv6 in brackets). */
export function grpcAddress(host: string, port: number): string {
  return host.includes(":") ? `[${host}]:${port}` : `${host}:${port}`;
}

/** Bind the gRPC binding's port on `host:port` (0 = any free port); resolves once bound. */
export async function listenGrpc(host: string, port: number, options: GrpcListenOptions): Promise<ServedGrpc> {
  // Loaded only when the binding is served: an agent without gRPC does not pay for grpc-js at start-up.
  const grpc = await loadGrpc();
  const { A2AService, UserBuilder, grpcService } = await import("@a2a-js/sdk/server/grpc");
  const { LegacyA2AService, legacyGrpcService } = await import("@a2a-js/sdk/compat/v0_3/server/grpc");
  const maxBytes = options.maxBodyBytes ?? DEFAULT_MAX_BODY_BYTES;
  const server = new grpc.Server({ "grpc.max_receive_message_length": maxBytes });
  const bound = await new Promise<number>((resolve, reject) => {
    server.bindAsync(grpcAddress(host, port), grpc.ServerCredentials.createInsecure(), (err, boundPort) => {
      if (err) reject(explainBindError(err, host, port));
      else resolve(boundPort);
    });
  });
  options.logger.info({ host, grpcPort: bound }, "gRPC binding listening");
  let serving = false;
  return {
    host,
    port: bound,
    serve(requestHandler, serveOptions = {}) {
      if (serving) throw new BenchError("E_GRPC_SERVING", "the gRPC binding already has a request handler");
      serving = true;
      const served = { requestHandler, userBuilder: UserBuilder.noAuthentication };
      const token = serveOptions.authToken;
      const guard = (service: Grpc.UntypedServiceImplementation): Grpc.UntypedServiceImplementation =>
        token ? withBearer(grpc, service, token) : service;
      server.addService(A2AService, guard(grpcService(served)));
      server.addService(LegacyA2AService, guard(legacyGrpcService(served)));
    },
    close: () =>
      new Promise<void>((resolve) => {
        // Resolves once the listener is closed; calls in flight end at once (as the HTTP server drops
        // its connections): the agent is stopping.
        server.tryShutdown(() => resolve());
        server.forceShutdown();
      }),
  };
}

/** A bind failure; a port held by another process says which one and names {@link GRPC_PORT_FLAG}. */
function explainBindError(err: Error, host: string, port: number): Error {
  if (port !== 0 && /EADDRINUSE|address already in use/i.test(err.message))
    return new PortInUseError(host, port, portHolderText(port), GRPC_PORT_FLAG);
  return new BenchError("E_GRPC_BIND", `cannot serve gRPC on ${grpcAddress(host, port)}: ${err.message}`, {
    cause: err,
  });
}

type Handler = (call: Grpc.ServerUnaryCall<unknown, unknown>, callback?: Grpc.sendUnaryData<unknown>) => void;

/** Every method of `service` behind the bearer check of its call's metadata. */
function withBearer(
  grpc: typeof Grpc,
  service: Grpc.UntypedServiceImplementation,
  token: string,
): Grpc.UntypedServiceImplementation {
  const guarded: Grpc.UntypedServiceImplementation = {};
  for (const [name, method] of Object.entries(service)) {
    const handler = method as unknown as Handler;
    const wrapped: Handler = (call, callback) => {
      const header = call.metadata.get("authorization")[0];
      if (bearerMatches(typeof header === "string" ? header : undefined, token)) return handler(call, callback);
      const denied = {
        code: grpc.status.UNAUTHENTICATED,
        details: "Unauthorized: send metadata authorization: Bearer <token>",
      };
      if (callback) callback(denied, null);
      else (call as unknown as Grpc.ServerWritableStream<unknown, unknown>).emit("error", denied);
    };
    guarded[name] = wrapped;
  }
  return guarded;
}
