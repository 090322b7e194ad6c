/**
 * The package entry (`import { ... } from "a2a-bench"`): exactly the names the table in
 * docs/architecture.md ("Library (the package entry)") lists, no more. Everything else is internal and may change without notice;
 * tests import internals from their own modules. `tests/docs/library-exports.test.ts` keeps this list and that
 * table equal.
 */

// SPARC 2.0 plan facade (docs/benchmarks/sparc.md, "Library API").
export {
  runBenchmark,
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
export { BenchError, ValidationError } from "./util/errors.js";

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
export { serveApp, type ServedApp } from "./a2a/serve.js";
export { loadAgentCard, type CardAddress } from "./a2a/card.js";
export { createA2AClient, type WireVersion, type Binding, type A2AClientOptions } from "./a2a/client.js";
export { agentCardUrl } from "./a2a/agent-card-url.js";
export { CardFetchError } from "./a2a/card-fetch.js";
export { validateBundle } from "./bundle/validate.js";
export { extractBundle, type ExtractResult } from "./bundle/extract.js";
