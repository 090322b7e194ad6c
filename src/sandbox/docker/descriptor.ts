/**
 * The docker backend's descriptor: programs run in containers of a container
 * engine at DOCKER_HOST (no network, no capabilities, read-only root, a uid
 * per job); SWE-bench runs each instance in its own image.
 */
import { checkBackendOptions, defineSandboxBackend, type SandboxFactory } from "../backend.js";
import type { DockerMode } from "./docker-sandbox.js";

/** The docker backend's own options (`CreateSandboxOptions.backendOptions`). */
export interface DockerOptions {
  /** Job image; default $A2A_BENCH_DOCKER_IMAGE, else a2a-bench/debian-base:bookworm. */
  image?: string;
  /** A container per run (default) or per job. */
  mode?: DockerMode;
}

export const dockerBackend = defineSandboxBackend({
  name: "docker",
  summary: "containers of a container engine at DOCKER_HOST",
  isolationLevels: ["docker"],
  fullIsolation: ["docker"],
  // Files go in `files`: no host directory, overlay or root job (docker-sandbox.ts refuses them).
  capabilities: new Set(["environments", "images"] as const),
  guarantees: ["memory-limit", "process-limit", "no-network"],
  preflight: {
    env: [],
    programs: [
      {
        tool: "docker",
        command: (env) => env["A2A_BENCH_DOCKER_CLI"] || "docker",
        fix: "install the docker CLI (or set A2A_BENCH_DOCKER_CLI to podman's path); the engine itself may run elsewhere (DOCKER_HOST)",
      },
    ],
    unavailableFix:
      "start a container engine (`scripts/container-engine.sh start`) and export the DOCKER_HOST it prints; the job image must exist (`$A2A_BENCH_DOCKER_IMAGE`, default a2a-bench/debian-base:bookworm)",
  },
  // The docker CLI's own selection of an engine (and Podman's, with A2A_BENCH_DOCKER_CLI=podman); the
  // A2A_BENCH_DOCKER_* and A2A_BENCH_ENGINE_DIR settings pass with every A2A_BENCH_* name.
  selectionEnv: {
    names: [
      "DOCKER_HOST",
      "DOCKER_CONTEXT",
      "DOCKER_CONFIG",
      "DOCKER_CERT_PATH",
      "DOCKER_TLS_VERIFY",
      "DOCKER_API_VERSION",
      "CONTAINER_HOST",
      "CONTAINER_CONNECTION",
    ],
    prefixes: [],
  },
  backendOptions: (raw) =>
    checkBackendOptions<DockerOptions>("docker", raw, { image: "string", mode: ["per-run", "per-job"] }),
  load: async (): Promise<SandboxFactory> => {
    const { createDockerSandbox } = await import("./docker-sandbox.js");
    return (options, limits) =>
      createDockerSandbox({
        limits,
        logger: options.logger,
        ...(options.concurrency ? { concurrency: options.concurrency } : {}),
        ...(options.owner !== undefined ? { owner: options.owner } : {}),
        // Checked by backendOptions above before this factory loaded (sandbox/index.ts).
        ...(options.backendOptions as DockerOptions | undefined),
      });
  },
});
