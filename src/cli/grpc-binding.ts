/**
 * The gRPC binding of an agent server, as `--grpc-port` asks (green and purple alike): its port bound
 * before the HTTP app is built (the card names it), closed again when the agent fails to start.
 */
import { listenGrpc, type ServedGrpc } from "../a2a/server/grpc-server.js";
import type { Logger } from "../util/logger.js";
import type { AgentServerArgs } from "./server-args.js";

/** Bind the gRPC port when `--grpc-port` was given; undefined otherwise (no gRPC). */
export function grpcBinding(
  args: Pick<AgentServerArgs, "host" | "grpcPort">,
  logger: Logger,
  maxBodyBytes: number | undefined,
): Promise<ServedGrpc | undefined> {
  if (args.grpcPort === undefined) return Promise.resolve(undefined);
  return listenGrpc(args.host, args.grpcPort, { logger, ...(maxBodyBytes !== undefined ? { maxBodyBytes } : {}) });
}

/** `started`, with `grpc` closed when it rejects (no listener outlives a failed start). */
export async function closeGrpcOnFailure<T>(started: Promise<T>, grpc: ServedGrpc | undefined): Promise<T> {
  try {
    return await started;
  } catch (err) {
    await grpc?.close();
    throw err;
  }
}
