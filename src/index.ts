/** Library API of a2a-bench. */
export * from "./runner/protocol.js";
export type * from "./sandbox/types.js";
// SPARC 2.0 plan-shaped library API (runBenchmark(config: BenchmarkConfig, options?: BenchmarkOptions)).
export * from "./api/index.js";
export { createSandbox, SandboxError, DEFAULT_LIMITS, type CreateSandboxOptions } from "./sandbox/index.js";
export { startE2bStandIn, type StandInServer, type StandInOptions } from "./sandbox/e2b/stand-in-server.js";
export { createGreenApp, type GreenApp, type GreenAppOptions } from "./green/app.js";
export { createPurpleApp, type PurpleAppOptions } from "./purple/app.js";
export { validateBundle, bundleProblems } from "./bundle/validate.js";
export { extractBundle } from "./bundle/extract.js";
export type { EvaluationBundle } from "./bundle/build.js";
export { createSolver, SOLVERS, solverModes, type SolverOptions, type SolverFactory } from "./purple/solvers/index.js";
export { loadAgentCard, cardFromToml } from "./a2a/card.js";
export { createA2AClient, type WireVersion, type Binding } from "./a2a/client.js";
export { serveApp } from "./a2a/serve.js";
// Benchmark runner core (the CLI `run`, the green agent's runner and the API above all go through it).
// Exported as runBenchmarkCore: the name runBenchmark is the SPARC-plan API's.
export {
  runBenchmark as runBenchmarkCore,
  runPaths,
  EXIT_INTERRUPTED,
  type RunDependencies,
  type RunOutcome,
  type RunPaths,
} from "./runner/run-benchmark.js";
export { getBenchmark, knownBenchmarks } from "./benchmarks/index.js";
export { parseRunArgs, resolveRunOptions, readConfigFile } from "./runner/run-args.js";
export { createA2AParticipant, ParticipantError } from "./a2a/participant-client.js";
export {
  InfrastructureError,
  toolsMissing,
  isInfrastructureFailureMode,
  type InfrastructureCode,
} from "./runner/infrastructure-error.js";
export { judgeRun, DEFAULT_MAX_INFRASTRUCTURE_FAILURE_SHARE, type RunVerdict } from "./runner/run-verdict.js";
export { agentCardUrl } from "./a2a/agent-card-url.js";
export { extractCode, type ExtractedCode } from "./benchmarks/humaneval/extract-code.js";
export { selectItems, sampleItems, shardItems } from "./runner/selection.js";
export { fnv1a32 } from "./runner/fnv1a.js";
export { computeChecksum, readCheckpoint, writeCheckpoint, CheckpointError } from "./runner/checkpoint.js";
export { passAtK, passAtKOverTasks } from "./benchmarks/humaneval/pass-at-k.js";
export { createHumanEvalBenchmark } from "./benchmarks/humaneval/benchmark.js";
export type {
  BenchmarkDefinition,
  BenchmarkItem,
  ItemResult,
  EvaluateContext,
  DatasetInfo,
} from "./runner/benchmark.js";
export type { RunOptions } from "./runner/options.js";
export type { AssessmentConfig } from "./request-config/config.js";
export type { Participant, ParticipantRequest, ParticipantReply } from "./runner/participant.js";
