/**
 * The docker-pool backend's descriptor: several container engines as one
 * sandbox (pool-sandbox.ts), each used as the docker backend uses its one.
 */
import { defineSandboxBackend, type SandboxFactory } from "../backend.js";

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
  load: async (): Promise<SandboxFactory> => {
    const { createDockerPool } = await import("./pool-sandbox.js");
    const { poolHosts } = await import("./hosts.js");
    return (options, limits) => {
      const pool = options.dockerPool ?? {};
      return createDockerPool({
        hosts: poolHosts(pool.hosts, process.env),
        limits,
        logger: options.logger,
        ...(pool.capacityPerEngine !== undefined ? { capacityPerEngine: pool.capacityPerEngine } : {}),
        ...(pool.images !== undefined ? { images: pool.images } : {}),
        ...(options.docker?.image !== undefined ? { image: options.docker.image } : {}),
        ...(options.docker?.mode !== undefined ? { mode: options.docker.mode } : {}),
        ...(options.docker?.owner !== undefined ? { owner: options.docker.owner } : {}),
      });
    };
  },
});
