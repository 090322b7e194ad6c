/**
 * Entry of the sandbox module: `createSandbox` looks the backend up in the
 * registry (registry.ts) and calls its factory, which probes the isolation
 * once and reports it (`isolation`, `warnings`): never silently weaker.
 */
import type { Sandbox } from "./types.js";
import { backendOptionsFor, type CreateSandboxOptions } from "./backend.js";
import { SandboxError } from "./errors.js";
import { resolveLimits } from "./limits.js";
import { sandboxBackend } from "./registry.js";

export type { CreateSandboxOptions } from "./backend.js";

/** Create a sandbox. Rejects with SandboxError (E_SANDBOX_OPTIONS, E_SANDBOX_UNAVAILABLE, E_E2B_API_KEY). */
export async function createSandbox(options: CreateSandboxOptions): Promise<Sandbox> {
  const backend = sandboxBackend(options.backend);
  const limits = resolveLimits(options.limits);
  if (options.concurrency !== undefined && (!Number.isInteger(options.concurrency) || options.concurrency < 1)) {
    throw new SandboxError("E_SANDBOX_OPTIONS", `concurrency must be a positive integer, got ${options.concurrency}`);
  }
  const backendOptions = backendOptionsFor(backend, options.backendOptions);
  const create = await backend.load();
  return create({ ...options, backendOptions }, limits);
}

export type { Sandbox, SandboxLimits, ExecRequest, ExecOutcome } from "./types.js";
export type {
  BackendCapabilities,
  SandboxBackendDescriptor,
  SandboxFactory,
  SandboxGuarantee,
  ProgramNeed,
  EnvNeed,
} from "./backend.js";
export { defineSandboxBackend } from "./backend.js";
export {
  registerSandboxBackend,
  sandboxBackends,
  sandboxBackendNames,
  sandboxBackend,
  findSandboxBackend,
  isFullIsolationLevel,
  fullIsolationLevels,
  DEFAULT_SANDBOX_BACKEND,
  type SandboxBackendName,
  type IsolationLevel,
} from "./registry.js";
export { SandboxError } from "./errors.js";
export { DEFAULT_LIMITS } from "./limits.js";
export {
  SANDBOX_CAPABILITIES,
  SandboxCapabilityError,
  requireCapabilities,
  type SandboxCapability,
} from "./capabilities.js";
export { environmentsOf, type Environment, type EnvironmentSpec } from "./environment.js";
