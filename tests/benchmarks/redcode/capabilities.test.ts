import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { createRedcodeBenchmark, sampleItems } from "../../../src/benchmarks/redcode/definition.js";
import { buildExecRequest, REDCODE_CAPABILITIES } from "../../../src/benchmarks/redcode/execute.js";
import type { HostWorld } from "../../../src/benchmarks/redcode/host-world.js";
import {
  requestCapabilities,
  SandboxCapabilityError,
  type SandboxCapability,
} from "../../../src/sandbox/capabilities.js";
import type { Sandbox } from "../../../src/sandbox/types.js";
import type { IsolationLevel } from "../../../src/sandbox/registry.js";
import { silentLogger } from "../../../src/util/logger.js";
import { testRunOptions } from "../../support/run-options.js";

/** A backend at `isolation` with `caps`, on which nothing may run. */
function backend(name: Sandbox["backend"], isolation: IsolationLevel, caps: SandboxCapability[]): Sandbox {
  return {
    backend: name,
    isolation,
    warnings: [],
    capabilities: new Set(caps),
    exec: async () => {
      throw new Error("nothing may run");
    },
    execMany: async () => {
      throw new Error("nothing may run");
    },
    close: async () => {},
  };
}

const item = sampleItems()[0]!;
let root: string;
beforeAll(async () => {
  root = await mkdtemp(join(tmpdir(), "a2a-redcode-caps-"));
});
afterAll(async () => {
  await rm(root, { recursive: true, force: true });
});
const evaluate = (sandbox: Sandbox) =>
  createRedcodeBenchmark().evaluate(item, {
    options: testRunOptions({ benchmark: "redcode", out: root, run_id: "caps", replay_dataset_code: true }),
    sandbox,
    participant: null,
    logger: silentLogger(),
    signal: new AbortController().signal,
    workDir: join(root, "work"),
  });

describe("RedCode's throw-away world is named capabilities", () => {
  it("its request uses exactly the capabilities it asks for", () => {
    const world = {
      workDir: "/w",
      rootDir: "/r",
      uppers: { "/etc": "/u/etc", "/usr": "/u/usr" },
    } as unknown as HostWorld;
    const req = buildExecRequest(item, "print(1)", world, "/s", 5);
    expect([...requestCapabilities(req)].sort()).toEqual([...REDCODE_CAPABILITIES].sort());
  });

  it("a fully isolated backend without them (e2b, docker) stops the run with a typed error naming backend and capability", async () => {
    for (const [name, level] of [
      ["e2b", "e2b"],
      ["docker", "bwrap"],
    ] as const) {
      const err = await evaluate(backend(name, level, ["environments"])).then(
        () => null,
        (e: unknown) => e,
      );
      expect(err).toBeInstanceOf(SandboxCapabilityError);
      expect(err).toMatchObject({
        code: "E_SANDBOX_CAPABILITY",
        backend: name,
        capability: "overlays",
        caller: "redcode",
      });
      expect((err as Error).message).toContain(
        `which the ${name} backend does not offer here; fix: use the local sandbox at bwrap isolation, as root`,
      );
    }
  });

  it("the local backend at bwrap without root (no overlays) is refused the same way; with all four it is not", async () => {
    await expect(
      evaluate(backend("local", "bwrap", ["host-workdir", "host-binds", "userns-root"])),
    ).rejects.toMatchObject({
      code: "E_SANDBOX_CAPABILITY",
      backend: "local",
      capability: "overlays",
    });
    // With every capability the refusal is gone: the run reaches the sandbox (which this fake refuses to run).
    const row = await evaluate(backend("local", "bwrap", [...REDCODE_CAPABILITIES]));
    expect(row).toMatchObject({ status: "error" });
    expect(String(row.error)).toContain("nothing may run");
  });

  it("weak isolation is still an error row before any capability is asked", async () => {
    const row = await evaluate(backend("local", "none", [...REDCODE_CAPABILITIES]));
    expect(row).toMatchObject({ status: "error", failure_mode: "infrastructure_unsafe_sandbox" });
  });
});
