import { describe, expect, it } from "vitest";
import { existsSync, readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import {
  DEFAULT_SANDBOX_BACKEND,
  createSandbox,
  defineSandboxBackend,
  fullIsolationLevels,
  isFullIsolationLevel,
  registerSandboxBackend,
  sandboxBackendNames,
  sandboxBackends,
  type SandboxFactory,
} from "../../src/sandbox/index.js";
import { isFullIsolation } from "../../src/runner/isolation-policy.js";
import { localCapabilities } from "../../src/sandbox/local/local-capabilities.js";
import { packageRoot } from "../../src/util/package-root.js";
import { silentLogger } from "../../src/util/logger.js";
import { backendSchemaMismatches, readRegistrySchemas } from "../support/registry-schemas.js";

const SANDBOX_DIR = join(packageRoot, "src", "sandbox");
const folders = readdirSync(SANDBOX_DIR, { withFileTypes: true })
  .filter((e) => e.isDirectory())
  .map((e) => e.name)
  .sort();

const neverCreated: SandboxFactory = async () => {
  throw new Error("not created in this test");
};
const twin = defineSandboxBackend({
  name: "twin",
  summary: "test backend",
  isolationLevels: ["bwrap"],
  fullIsolation: [],
  capabilities: new Set([]),
  preflight: { env: [], programs: [], unavailableFix: "none" },
  selectionEnv: { names: ["TWIN_HOST"], prefixes: ["TWIN_"] },
  load: async () => neverCreated,
});

describe("sandbox backend registry", () => {
  it("the schemas' sandbox and isolation enums (and the request's default) equal the registry", () => {
    expect(backendSchemaMismatches(readRegistrySchemas(), sandboxBackends())).toEqual([]);
    expect(DEFAULT_SANDBOX_BACKEND).toBe("local");
  });

  it("the checker fails when they differ", () => {
    // Both backends at the "docker" level gone: the level is not registered either.
    const withoutDocker = sandboxBackends().filter((b) => b.name !== "docker" && b.name !== "docker-pool");
    expect(backendSchemaMismatches(readRegistrySchemas(), withoutDocker)).toEqual([
      'assessment_request.schema.json sandbox enum has "docker", which is not registered',
      'assessment_request.schema.json sandbox enum has "docker-pool", which is not registered',
      'results.schema.json isolation.backend enum has "docker", which is not registered',
      'results.schema.json isolation.backend enum has "docker-pool", which is not registered',
      'results.schema.json isolation.level enum has "docker", which is not registered',
    ]);
  });

  it("every backend folder with a descriptor is registered under its name, and back; descriptors are import-cheap", () => {
    const withDescriptor = folders.filter((f) => existsSync(join(SANDBOX_DIR, f, "descriptor.ts")));
    expect(withDescriptor).toEqual([...sandboxBackendNames()].sort());
    for (const name of withDescriptor) {
      const text = readFileSync(join(SANDBOX_DIR, name, "descriptor.ts"), "utf8");
      const valueImports = [...text.matchAll(/^import\s+(?!type\b)[^;]*?from\s+"([^"]+)"/gms)].map((m) => m[1]);
      expect(valueImports, name).toEqual(["../backend.js"]);
    }
  });

  it("full isolation is what the backends declare: bwrap, e2b, docker, kubernetes; unshare and none are weak", () => {
    expect(fullIsolationLevels()).toEqual(expect.arrayContaining(["bwrap", "e2b", "docker", "kubernetes"]));
    expect(fullIsolationLevels()).not.toContain("unshare");
    for (const level of ["bwrap", "e2b", "docker", "kubernetes"]) expect(isFullIsolation(level), level).toBe(true);
    for (const level of ["unshare", "none", "anything"]) expect(isFullIsolation(level), level).toBe(false);
  });

  it("capabilities are what each backend does today", () => {
    const caps = Object.fromEntries(sandboxBackends().map((b) => [b.name, [...b.capabilities].sort()]));
    expect(caps).toMatchObject({
      local: ["environments", "host-binds", "host-workdir", "overlays", "userns-root"],
      e2b: ["environments", "images"],
      docker: ["environments", "images"],
      "docker-pool": ["environments", "images"],
    });
  });

  it("a local sandbox never offers more than its descriptor says, at any probed level", () => {
    const declared = sandboxBackends().find((b) => b.name === "local")!.capabilities;
    for (const level of ["bwrap", "unshare", "none"] as const)
      for (const isRoot of [true, false]) {
        const offered = localCapabilities({ level, tools: { isRoot, unshare: "/usr/bin/unshare" } as never });
        for (const c of offered) expect(declared.has(c), `${level} root=${isRoot}: ${c}`).toBe(true);
      }
  });

  it("registration refuses a taken name, a stray full level and a disagreement on a shared level", () => {
    expect(() => registerSandboxBackend({ ...twin, name: "local" })).toThrow(
      'sandbox backend "local" is already registered',
    );
    expect(() => registerSandboxBackend({ ...twin, name: "stray", fullIsolation: ["nope"] as never })).toThrow(
      "full isolation level(s) nope not among its levels",
    );
    // bwrap is full for the local backend: another backend may not call it weak.
    expect(() => registerSandboxBackend(twin)).toThrow(
      'backend "twin" and "local" disagree on whether bwrap is full isolation',
    );
    expect(sandboxBackendNames()).not.toContain("twin");
    expect(sandboxBackendNames().filter((n) => n === "local")).toHaveLength(1);
    expect(isFullIsolationLevel("bwrap")).toBe(true);
  });

  it("createSandbox refuses an unregistered backend, naming the registered ones", async () => {
    await expect(createSandbox({ backend: "podman", logger: silentLogger() })).rejects.toMatchObject({
      code: "E_SANDBOX_OPTIONS",
      message: `backend must be one of ${sandboxBackendNames().join(", ")}, got "podman"`,
    });
  });
});
