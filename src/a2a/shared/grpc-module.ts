/**
 * grpc-js, loaded on first use (an agent or client without gRPC never pays for it). It is a CommonJS
 * package: imported from our bundle (dist/cli.js) its exports may sit under `default`, imported from
 * plain ESM they are the namespace itself; this returns them either way.
 */
import type * as Grpc from "@grpc/grpc-js";

export type GrpcModule = typeof Grpc;

export async function loadGrpc(): Promise<GrpcModule> {
  const mod = (await import("@grpc/grpc-js")) as GrpcModule & { default?: GrpcModule };
  return typeof mod.Server === "function" ? mod : mod.default;
}
