/** Library API of a2a-bench. */
export * from "./runner/protocol.js";
export type * from "./sandbox/types.js";
// SPARC 2.0 plan-shaped library API (runBenchmark(config: BenchmarkConfig, options?: BenchmarkOptions)).
export * from "./api/index.js";
export { createSandbox, SandboxError, DEFAULT_LIMITS, type CreateSandboxOptions } from "./sandbox/index.js";
export { startE2bStandIn, type StandInServer, type StandInOptions } from "./sandbox/e2b/stand-in-server.js";
