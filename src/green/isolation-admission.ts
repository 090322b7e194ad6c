/**
 * Whether the green agent accepts a request's sandbox backend at the isolation it would run at, asked of
 * the backend's descriptor (never of its name): a backend whose every level is full is accepted; one on
 * this host (`hostIsolation`) at the level the host's probe found; any other with weak levels is refused,
 * since nothing can tell its level before the run. Undefined when accepted, else the level refused.
 */
import type { SandboxBackendDescriptor } from "../sandbox/backend.js";
import { isFullIsolation } from "../runner/isolation-policy.js";

export async function refusedIsolationLevel(
  backend: SandboxBackendDescriptor,
  hostLevel: () => Promise<string>,
): Promise<string | undefined> {
  if (backend.isolationLevels.every(isFullIsolation)) return undefined;
  if (backend.hostIsolation !== true) return backend.isolationLevels.find((l) => !isFullIsolation(l));
  const level = await hostLevel();
  return isFullIsolation(level) ? undefined : level;
}
