/**
 * The runner's environment: a fixed allow-list plus what selects each registered sandbox backend's engine
 * or service, taken from the backends' descriptors — so `DOCKER_HOST=… a2a-bench green` reaches the runner.
 */
import { afterEach, describe, expect, it } from "vitest";
import { runnerEnv, runnerEnvAllowList } from "../../../src/green/supervisor/env.js";
import { defineSandboxBackend } from "../../../src/sandbox/backend.js";
import { registerSandboxBackend, sandboxBackends } from "../../../src/sandbox/registry.js";

let unregister: (() => void) | undefined;
afterEach(() => {
  unregister?.();
  unregister = undefined;
});

const green: NodeJS.ProcessEnv = {
  PATH: "/usr/bin",
  DOCKER_HOST: "unix:///srv/engine/docker.sock",
  DOCKER_CONTEXT: "remote",
  DOCKER_CERT_PATH: "/certs",
  DOCKER_TLS_VERIFY: "1",
  E2B_API_KEY: "k",
  E2B_DOMAIN: "e2b.example",
  A2A_BENCH_DOCKER_IMAGE: "img",
  GREEN_AUTH_TOKEN: "secret",
  OPENAI_API_KEY: "secret",
  AWS_SECRET_ACCESS_KEY: "secret",
};

describe("runnerEnv", () => {
  it("passes what selects the docker engine and the E2B service, and no other secret", () => {
    expect(runnerEnv(green)).toEqual({
      PATH: "/usr/bin",
      DOCKER_HOST: "unix:///srv/engine/docker.sock",
      DOCKER_CONTEXT: "remote",
      DOCKER_CERT_PATH: "/certs",
      DOCKER_TLS_VERIFY: "1",
      E2B_API_KEY: "k",
      E2B_DOMAIN: "e2b.example",
      A2A_BENCH_DOCKER_IMAGE: "img",
    });
  });

  it("every backend's declared selection variables are on the list", () => {
    const list = runnerEnvAllowList();
    for (const b of sandboxBackends()) {
      for (const n of b.selectionEnv.names) expect(list.names).toContain(n);
      for (const p of b.selectionEnv.prefixes) expect(list.prefixes).toContain(p);
    }
  });

  it("a backend registered later brings its own variables", () => {
    expect(runnerEnv({ TWIN_HOST: "h", TWIN_TOKEN: "t" })).toEqual({});
    unregister = registerSandboxBackend(
      defineSandboxBackend({
        name: "twin-env",
        summary: "test backend",
        isolationLevels: ["twin-env"],
        fullIsolation: [],
        capabilities: new Set([]),
        preflight: { env: [], programs: [], unavailableFix: "none" },
        selectionEnv: { names: ["TWIN_HOST"], prefixes: ["TWIN_"] },
        load: async () => {
          throw new Error("not created in this test");
        },
      }),
    );
    expect(runnerEnv({ TWIN_HOST: "h", TWIN_TOKEN: "t", OTHER: "x" })).toEqual({ TWIN_HOST: "h", TWIN_TOKEN: "t" });
  });

  it("the operator's extra names still pass", () => {
    expect(runnerEnv({ MY_PROXY: "p", OTHER: "x" }, ["MY_PROXY"])).toEqual({ MY_PROXY: "p" });
  });
});
