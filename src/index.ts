/**
 * The package entry (`import { ... } from "a2a-bench"`): exactly the names docs/library.md's export table
 * lists, no more. Everything else is internal and may change without notice; tests import internals from
 * their own modules. `tests/docs/library-exports.test.ts` keeps this list and that table equal.
 */

// The engine: run a benchmark from a request config (docs/library.md "Running a benchmark").
export { runBenchmark, type RunBenchmarkOptions, type BenchmarkRun } from "./library/run-benchmark.js";
export type { RunPaths } from "./runner/run-benchmark.js";
export type { AssessmentConfig, ResolvedConfig } from "./request-config/config.js";
export type { BenchmarkName } from "./benchmarks/index.js";
export type { RunOptions } from "./runner/options.js";
export type { ProgressReporter } from "./runner/progress.js";
export type { RunnerEvent } from "./runner/protocol.js";

// The benchmark registry and the plug-in contract (docs/library.md "Benchmarks").
export { getBenchmark, knownBenchmarks, registerBenchmark } from "./benchmarks/index.js";
export { defineBenchmark, type BenchmarkDescriptor } from "./benchmarks/descriptor.js";
export { registerSandboxBackend } from "./sandbox/registry.js";
export { defineSandboxBackend, type SandboxBackendDescriptor } from "./sandbox/backend.js";
export type {
  BenchmarkDefinition,
  BenchmarkItem,
  EvaluateContext,
  ItemResult,
  DatasetInfo,
  RunEndContext,
} from "./runner/benchmark.js";
export type { Participant } from "./a2a/shared/participant.js";

// Results and bundles (docs/library.md "Results").
export type { ResultsDocument, ResultRow, ResultsError, ResultsAggregate } from "./results-file/document.js";
export type { EvaluationBundle } from "./bundle/build.js";

// Errors (docs/library.md "Errors"): InfrastructureError means our side failed, the run has no score.
export { BenchError, ValidationError, UsageError } from "./util/errors.js";
export { InfrastructureError, type InfrastructureCode } from "./util/infrastructure-error.js";

// SPARC 2.0 configs (docs/library.md "SPARC configs").
export {
  runSparcConfig,
  runHumanEval,
  runSWEBench,
  runRedCode,
  installPackages,
  PackageSourceUnreachableError,
  PackageNotFoundError,
  PackageInstallError,
  type InstallPackagesOptions,
  type InstalledPackages,
  type BenchmarkConfig,
  type BenchmarkOptions,
  type BenchmarkResult,
  type BenchmarkMetrics,
  type BenchmarkType,
  type TestCase,
  type TestResult,
} from "./sparc-plan/index.js";

// Sandbox (docs/sandboxes.md).
export {
  createSandbox,
  SandboxError,
  type CreateSandboxOptions,
  type Sandbox,
  type SandboxLimits,
  type ExecRequest,
  type ExecOutcome,
  type IsolationLevel,
} from "./sandbox/index.js";

// Agents, bundles, A2A client (docs/agents.md, "Library").
export { createGreenApp, type GreenApp, type GreenAppOptions } from "./green/app.js";
export { createPurpleApp, type PurpleAppOptions } from "./purple/app.js";
export { createSolver, type SolverOptions } from "./purple/solvers/index.js";
export type { Solver, SolverInput, SolverReply } from "./purple/solver.js";
export { serveApp, type ServedApp } from "./a2a/server/serve.js";
export { loadAgentCard, type CardAddress } from "./a2a/shared/card.js";
export { createA2AClient, type WireVersion, type Binding, type A2AClientOptions } from "./a2a/client/client.js";
export { agentCardUrl } from "./a2a/client/agent-card-url.js";
export { CardFetchError } from "./a2a/client/card-fetch.js";
export { validateBundle } from "./bundle/validate.js";
export { extractBundle, type ExtractResult } from "./bundle/extract.js";
