/**
 * The `environments` capability (capabilities.ts): a session living for one
 * item or episode. It starts from an image (capability `images`: container
 * backends) or from a copy of a host tree (the local backend), runs commands one after another
 * with their state kept on its disk, reads and writes files, and is closed
 * by its owner; Inspect AI's per-sample sandbox environment (init, exec,
 * read_file/write_file, cleanup) is the model. A benchmark asks the run's
 * sandbox for one (`openEnvironment`) and never learns how the backend keeps
 * it (a container, a pod, a remote VM).
 *
 * Contract every backend keeps (docs/sandbox-backends.md):
 * - isolation at least that of the backend's `exec`: no network, no host
 *   files, every Linux capability dropped, the sandbox's limits as cgroup or
 *   equivalent caps; the environment is what `Sandbox.isolation` reports;
 * - `files` of the spec are in place before the first command, never passed
 *   on a command line;
 * - a command's timeout or its caller's abort ENDS the environment (killing
 *   only a client would leave the command running): later calls report an
 *   `infraError` and nothing more runs;
 * - nothing outlives the owner process, even one killed by SIGKILL; close()
 *   is idempotent and resolves once the backend no longer holds it.
 */
import type { Environment, EnvironmentSpec, Sandbox } from "./types.js";
import { requireCapabilities, SandboxCapabilityError } from "./capabilities.js";
import { SandboxError } from "./errors.js";

export { ENVIRONMENT_OUTPUT_BYTES } from "./types.js";
export type {
  Environment,
  EnvironmentExecOptions,
  EnvironmentExecOutcome,
  EnvironmentSpec,
  EnginePlace,
} from "./types.js";

/** The part of a sandbox that opens environments (present exactly when it declares `environments`). */
export interface EnvironmentProvider {
  /** Open one; rejects (SandboxError E_SANDBOX_UNAVAILABLE, the backend's message) when it cannot, leaving nothing behind. */
  openEnvironment(spec: EnvironmentSpec, signal?: AbortSignal): Promise<Environment>;
}

/**
 * The sandbox's environments, or SandboxCapabilityError naming the backend when it has none. A backend
 * that declares the capability without the method is refused the same way (fail closed).
 */
export function environmentsOf(sandbox: Sandbox, caller: string): EnvironmentProvider {
  requireCapabilities(sandbox, ["environments"], caller);
  if (sandbox.openEnvironment === undefined) throw new SandboxCapabilityError(sandbox.backend, "environments", caller);
  return { openEnvironment: (spec, signal) => sandbox.openEnvironment!(spec, signal) };
}

/**
 * Refuse (SandboxError E_SANDBOX_OPTIONS) a spec asking what only container-engine backends offer (`network`,
 * `prepare`): a backend that cannot honour them says so rather than open an environment without them.
 */
export function refuseEngineOnly(spec: EnvironmentSpec, backend: string): void {
  if (spec.network !== undefined)
    throw new SandboxError(
      "E_SANDBOX_OPTIONS",
      `the ${backend} backend gives environments no network: spec.network (${spec.network}) is offered by sandbox: docker and docker-pool`,
    );
  if (spec.prepare !== undefined)
    throw new SandboxError(
      "E_SANDBOX_OPTIONS",
      `the ${backend} backend does not build images where it places an environment: spec.prepare is offered by sandbox: docker and docker-pool`,
    );
}
