/**
 * Entry of the sandbox module: `createSandbox` picks the backend (local, e2b, docker), probes the
 * isolation once and reports it (`isolation`, `warnings`): never silently weaker.
 */
import { homedir } from "node:os";
import type { Logger } from "../util/logger.js";
import { packageRoot } from "../util/package-root.js";
import type { Sandbox, SandboxLimits } from "./types.js";
import { SandboxError } from "./errors.js";
import { resolveLimits } from "./limits.js";
import { probeIsolation, runtimeTrees, type IsolationProbe, type LocalIsolation } from "./local/probe.js";
import { LocalSandbox } from "./local/local-sandbox.js";
import { hostViewArgs, readHostView } from "./local/host-view.js";
import { createE2bSandbox, type E2bOptions } from "./e2b/e2b-sandbox.js";
import { createDockerSandbox, type DockerMode } from "./docker/docker-sandbox.js";

export interface CreateSandboxOptions {
  backend: "local" | "e2b" | "docker";
  /** Per-program limits; defaults in DEFAULT_LIMITS. */
  limits?: Partial<SandboxLimits>;
  logger: Logger;
  /** Programs in flight at once; default: available cores. */
  concurrency?: number;
  /** Local backend: use exactly this isolation level (tests, or deliberate downgrades); default: strongest available. */
  forceIsolation?: LocalIsolation;
  /**
   * Host paths no job may see (a run passes its datasets root, output dir, checkout and caches:
   * src/runner/sandbox-hidden-paths.ts). The local bwrap sandbox shows only an allowlist of the host
   * (local/host-view.ts) and masks these should they lie inside it; HOME and this package's own root
   * are always added. Other backends show jobs none of the host's files.
   */
  hiddenPaths?: readonly string[];
  /** E2B backend connection settings; default from the E2B_* environment variables. */
  e2b?: E2bOptions;
  /** Docker backend: image (default $A2A_BENCH_DOCKER_IMAGE, else a2a-bench/debian-base:bookworm), mode (default per-run) and owner label. */
  docker?: { image?: string; mode?: DockerMode; owner?: string };
}

/** Refuse, up front, hidden paths the bwrap view cannot hide (one holding /usr, say). */
function checkHidden(tools: IsolationProbe["tools"], hidden: readonly string[]): void {
  try {
    hostViewArgs(readHostView(runtimeTrees(tools), hidden));
  } catch (e) {
    throw new SandboxError("E_SANDBOX_OPTIONS", `hiddenPaths: ${(e as Error).message}`);
  }
}

/** Create a sandbox. Rejects with SandboxError (E_SANDBOX_OPTIONS, E_SANDBOX_UNAVAILABLE, E_E2B_API_KEY). */
export async function createSandbox(options: CreateSandboxOptions): Promise<Sandbox> {
  const limits = resolveLimits(options.limits);
  if (options.concurrency !== undefined && (!Number.isInteger(options.concurrency) || options.concurrency < 1)) {
    throw new SandboxError("E_SANDBOX_OPTIONS", `concurrency must be a positive integer, got ${options.concurrency}`);
  }
  switch (options.backend) {
    case "local": {
      const probe = await probeIsolation(options.forceIsolation);
      for (const w of probe.warnings) options.logger.warn({ isolation: probe.level }, w);
      const hidden = [...new Set([...(options.hiddenPaths ?? []), homedir(), packageRoot])];
      if (probe.level === "bwrap") checkHidden(probe.tools, hidden);
      return new LocalSandbox({
        probe,
        limits,
        logger: options.logger,
        hidden,
        ...(options.concurrency ? { concurrency: options.concurrency } : {}),
      });
    }
    case "e2b":
      return createE2bSandbox({
        limits,
        logger: options.logger,
        ...(options.concurrency ? { concurrency: options.concurrency } : {}),
        ...(options.e2b ? { e2b: options.e2b } : {}),
      });
    case "docker":
      return createDockerSandbox({
        limits,
        logger: options.logger,
        ...(options.concurrency ? { concurrency: options.concurrency } : {}),
        ...options.docker,
      });
    default:
      throw new SandboxError(
        "E_SANDBOX_OPTIONS",
        `backend must be 'local', 'e2b' or 'docker', got ${JSON.stringify(options.backend)}`,
      );
  }
}

export type { Sandbox, SandboxLimits, ExecRequest, ExecOutcome, IsolationLevel } from "./types.js";
export { SandboxError } from "./errors.js";
export { DEFAULT_LIMITS } from "./limits.js";
export {
  SANDBOX_CAPABILITIES,
  SandboxCapabilityError,
  requireCapabilities,
  type SandboxCapability,
} from "./capabilities.js";
export { environmentsOf, type Environment, type EnvironmentSpec } from "./environment.js";
