/**
 * The sandbox backends: the ONLY list of them. The backend-name and
 * isolation-level types derive from it; the CLIs' flag checks, preflight,
 * `createSandbox` and the isolation policy ("is this level full?") ask it.
 * Adding a backend is its folder (`src/sandbox/<name>/descriptor.ts` and its
 * code) and one line in BUILT_IN_BACKENDS; the build writes its name and levels
 * into the schemas' enums (src/registry-schemas/). See docs/extending.md.
 */
import type { BackendSelectionEnv, SandboxBackendDescriptor } from "./backend.js";
import { SandboxError } from "./errors.js";
import { localBackend } from "./local/descriptor.js";
import { e2bBackend } from "./e2b/descriptor.js";
import { dockerBackend } from "./docker/descriptor.js";
import { dockerPoolBackend } from "./docker-pool/descriptor.js";
import { kubernetesBackend } from "./kubernetes/descriptor.js";

/** The built-in backends, one line each; the first is the default. */
const BUILT_IN_BACKENDS = [localBackend, e2bBackend, dockerBackend, dockerPoolBackend, kubernetesBackend] as const;

type BuiltIn = (typeof BUILT_IN_BACKENDS)[number];
/** Name of a built-in sandbox backend. */
export type SandboxBackendName = BuiltIn["name"];
/** An isolation level a built-in backend can report; recorded in results, never silently weaker. */
export type IsolationLevel = BuiltIn["isolationLevels"][number];

/** The backend a run uses when its config names none. */
export const DEFAULT_SANDBOX_BACKEND: SandboxBackendName = BUILT_IN_BACKENDS[0].name;

const registry = new Map<string, SandboxBackendDescriptor>();

/**
 * Register a backend (the built-in ones are registered on import). Refuses a
 * name already taken. Returns a function that unregisters it again (tests).
 */
export function registerSandboxBackend(descriptor: SandboxBackendDescriptor): () => void {
  if (!/^[a-z][a-z0-9-]*$/.test(descriptor.name))
    throw new SandboxError("E_SANDBOX_OPTIONS", `backend name must be lower-case kebab-case, got "${descriptor.name}"`);
  if (registry.has(descriptor.name))
    throw new SandboxError("E_SANDBOX_OPTIONS", `sandbox backend "${descriptor.name}" is already registered`);
  const stray = descriptor.fullIsolation.filter((l) => !descriptor.isolationLevels.includes(l));
  if (stray.length > 0)
    throw new SandboxError(
      "E_SANDBOX_OPTIONS",
      `backend "${descriptor.name}": full isolation level(s) ${stray.join(", ")} not among its levels`,
    );
  for (const other of registry.values()) {
    const disagree = descriptor.isolationLevels.filter(
      (l) =>
        other.isolationLevels.includes(l) && other.fullIsolation.includes(l) !== descriptor.fullIsolation.includes(l),
    );
    if (disagree.length > 0)
      throw new SandboxError(
        "E_SANDBOX_OPTIONS",
        `backend "${descriptor.name}" and "${other.name}" disagree on whether ${disagree.join(", ")} is full isolation`,
      );
  }
  registry.set(descriptor.name, descriptor);
  return () => {
    if (registry.get(descriptor.name) === descriptor) registry.delete(descriptor.name);
  };
}

for (const backend of BUILT_IN_BACKENDS) registerSandboxBackend(backend);

/** Every registered backend, in registration order. */
export function sandboxBackends(): SandboxBackendDescriptor[] {
  return [...registry.values()];
}

/** Names of the registered backends, in registration order. */
export function sandboxBackendNames(): string[] {
  return [...registry.keys()];
}

/** The backend called `name`, or undefined. */
export function findSandboxBackend(name: string): SandboxBackendDescriptor | undefined {
  return registry.get(name);
}

/** The backend called `name`; a SandboxError E_SANDBOX_OPTIONS naming the registered ones otherwise. */
export function sandboxBackend(name: string): SandboxBackendDescriptor {
  const found = registry.get(name);
  if (!found)
    throw new SandboxError(
      "E_SANDBOX_OPTIONS",
      `backend must be one of ${sandboxBackendNames().join(", ")}, got ${JSON.stringify(name)}`,
    );
  return found;
}

/** Every isolation level at which some backend's jobs cannot read or change the host. */
export function fullIsolationLevels(): string[] {
  return [...new Set(sandboxBackends().flatMap((b) => b.fullIsolation))];
}

/** Whether `level` is full isolation: some registered backend declares it so. */
export function isFullIsolationLevel(level: string): boolean {
  return sandboxBackends().some((b) => b.fullIsolation.includes(level));
}

/** What selects any registered backend's engine or service: the union of their `selectionEnv`. */
export function backendSelectionEnv(): BackendSelectionEnv {
  const all = sandboxBackends();
  return {
    names: [...new Set(all.flatMap((b) => b.selectionEnv.names))],
    prefixes: [...new Set(all.flatMap((b) => b.selectionEnv.prefixes))],
  };
}
