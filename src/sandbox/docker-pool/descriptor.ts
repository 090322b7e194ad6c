/**
 * The docker-pool backend's descriptor: several container engines as one
 * sandbox (pool-sandbox.ts), each used as the docker backend uses its one.
 */
import { checkBackendOptions, defineSandboxBackend, type OptionCheck, type SandboxFactory } from "../backend.js";
import type { DockerOptions } from "../docker/descriptor.js";
import type { PoolHost } from "./hosts.js";

/** The docker-pool backend's own options (`CreateSandboxOptions.backendOptions`): the docker backend's and its engines. */
export interface PoolBackendOptions extends DockerOptions {
  /** Its engines, `URL` or `URL#capacity=N` (hosts.ts); default $A2A_BENCH_DOCKER_HOSTS. */
  hosts?: readonly (string | PoolHost)[];
  /** Jobs and environments at once on an engine that names no capacity. */
  capacityPerEngine?: number;
  /** Images every engine must hold at start; default: the job image. */
  images?: readonly string[];
}

const HOST_LIST: OptionCheck = {
  what: "a list of engine URLs (or { url, capacity })",
  fits: (v) =>
    Array.isArray(v) &&
    v.every(
      (h) =>
        typeof h === "string" ||
        (typeof h === "object" && h !== null && typeof (h as { url?: unknown }).url === "string"),
    ),
};

/** What selects the engines: the docker CLI's own variables (../docker/descriptor.ts) and the pool's list. */
const SELECTION = [
  "DOCKER_CONFIG",
  "DOCKER_CERT_PATH",
  "DOCKER_TLS_VERIFY",
  "DOCKER_API_VERSION",
  "A2A_BENCH_DOCKER_HOSTS",
] as const;

export const dockerPoolBackend = defineSandboxBackend({
  name: "docker-pool",
  summary: "several container engines as one (docker_hosts: unix, tcp, ssh URLs), work placed by free capacity",
  isolationLevels: ["docker"],
  fullIsolation: ["docker"],
  capabilities: new Set(["environments", "images"] as const),
  guarantees: ["memory-limit", "process-limit", "no-network"],
  preflight: {
    env: [],
    programs: [
      {
        tool: "docker",
        command: (env) => env["A2A_BENCH_DOCKER_CLI"] || "docker",
        fix: "install the docker CLI: it reaches every engine of the pool (unix, tcp, ssh URLs)",
      },
    ],
    unavailableFix:
      "list the engines in docker_hosts (or A2A_BENCH_DOCKER_HOSTS); each must answer and hold the job image (docker save IMAGE | docker --host URL load)",
  },
  selectionEnv: { names: SELECTION, prefixes: [] },
  backendOptions: (raw) =>
    checkBackendOptions<PoolBackendOptions>("docker-pool", raw, {
      image: "string",
      mode: ["per-run", "per-job"],
      hosts: HOST_LIST,
      capacityPerEngine: "number",
      images: "string-list",
    }),
  // A run's config names the engines as `docker_hosts`.
  runOptions: (config) => {
    const hosts = (config as { docker_hosts?: readonly string[] }).docker_hosts;
    return hosts ? { hosts } : undefined;
  },
  load: async (): Promise<SandboxFactory> => {
    const { createDockerPool } = await import("./pool-sandbox.js");
    const { poolHosts } = await import("./hosts.js");
    return (options, limits) => {
      // Checked by backendOptions above before this factory loaded (sandbox/index.ts).
      const { hosts, ...pool } = (options.backendOptions ?? {}) as PoolBackendOptions;
      return createDockerPool({
        ...pool,
        hosts: poolHosts(hosts, process.env),
        limits,
        logger: options.logger,
        ...(options.owner !== undefined ? { owner: options.owner } : {}),
      });
    };
  },
});
