/**
 * The local backend's descriptor: programs run on this host under
 * bubblewrap, or the strongest fallback the host offers (reported, never
 * silently weaker; see probe.ts).
 */
import { checkBackendOptions, defineSandboxBackend, type SandboxFactory } from "../backend.js";
import type { LocalIsolation, LocalOptions } from "./levels.js";

const LEVELS: readonly LocalIsolation[] = ["bwrap", "unshare", "none"];

export type { LocalIsolation, LocalOptions } from "./levels.js";

export const localBackend = defineSandboxBackend({
  name: "local",
  summary: "this host: bubblewrap namespaces, or the strongest fallback available (reported)",
  isolationLevels: LEVELS,
  // unshare keeps the host's filesystem readable; none isolates nothing.
  fullIsolation: ["bwrap"],
  hostIsolation: true,
  capabilities: new Set(["environments", "host-workdir", "host-binds", "overlays", "userns-root"] as const),
  guarantees: ["memory-limit", "process-limit", "no-network"],
  preflight: {
    env: [],
    programs: [
      { tool: "python3", fix: "install python3 (`apt-get install -y python3`)" },
      { tool: "bwrap", fix: "install bubblewrap (`apt-get install -y bubblewrap`) for full isolation" },
    ],
    unavailableFix: "install python3 and bubblewrap (`apt-get install python3 bubblewrap`)",
  },
  // This host: nothing to select (its programs come from PATH, passed to every runner).
  selectionEnv: { names: [], prefixes: [] },
  backendOptions: (raw) => checkBackendOptions<LocalOptions>("local", raw, { forceIsolation: LEVELS }),
  load: async (): Promise<SandboxFactory> => (await import("./create.js")).createLocalSandbox,
});
