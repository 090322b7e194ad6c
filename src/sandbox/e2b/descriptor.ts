/**
 * The e2b backend's descriptor: programs run in a remote E2B microVM
 * (needs E2B_API_KEY and the optional @e2b/code-interpreter package).
 */
import { checkBackendOptions, defineSandboxBackend, type SandboxFactory } from "../backend.js";
import type { E2bOptions } from "./e2b-sandbox.js";

export const e2bBackend = defineSandboxBackend({
  name: "e2b",
  summary: "a remote E2B microVM (needs E2B_API_KEY)",
  isolationLevels: ["e2b"],
  fullIsolation: ["e2b"],
  // Files travel in the request: no host directory, overlay or root job (e2b-sandbox.ts refuses them).
  // Environments: one E2B sandbox each (e2b-environment.ts).
  capabilities: new Set(["environments", "images"] as const),
  preflight: {
    env: [
      {
        name: "E2B_API_KEY",
        fix: "export E2B_API_KEY=<your key> in the green agent's environment (or put it in .env for `scenario`)",
      },
    ],
    programs: [],
    unavailableFix: "check E2B_API_KEY and network access to E2B (E2B_DOMAIN / E2B_API_URL)",
  },
  // E2B_API_KEY, E2B_DOMAIN, E2B_API_URL, E2B_SANDBOX_URL, E2B_DEBUG… (the SDK reads more than we do).
  selectionEnv: { names: [], prefixes: ["E2B_"] },
  backendOptions: (raw) =>
    checkBackendOptions<E2bOptions>("e2b", raw, {
      apiKey: "string",
      apiUrl: "string",
      sandboxUrl: "string",
      template: "string",
      sandboxTimeoutMs: "number",
      environmentTemplates: "string-record",
    }),
  load: async (): Promise<SandboxFactory> => {
    const { createE2bSandbox } = await import("./e2b-sandbox.js");
    return (options, limits) => {
      // Checked by backendOptions above before this factory loaded (sandbox/index.ts).
      const e2b = options.backendOptions as E2bOptions | undefined;
      return createE2bSandbox({
        limits,
        logger: options.logger,
        ...(options.concurrency ? { concurrency: options.concurrency } : {}),
        ...(e2b ? { e2b } : {}),
      });
    };
  },
});
