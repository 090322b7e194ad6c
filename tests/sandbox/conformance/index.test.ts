/**
 * The suite itself: a backend that claims what it does not do fails the checks of those claims, and a
 * stub that claims little (what `a2a-bench new backend` writes: a delegate to the local backend with no
 * environments and no guarantees) passes the common contract with one call, its other checks not applicable.
 */
import { describe, expect, test } from "vitest";
import { defineSandboxBackend, type SandboxFactory } from "../../../src/sandbox/backend.js";
import { localBackend } from "../../../src/sandbox/local/descriptor.js";
import type { Sandbox, SandboxLimits } from "../../../src/sandbox/types.js";
import { formatConformance, runConformance } from "../../../src/sandbox/conformance/index.js";
import { describeConformance } from "../../support/conformance.js";

/** A sandbox of the local backend seen through another name and capabilities (and limits, when given). */
function delegate(
  name: string,
  capabilities: Sandbox["capabilities"],
  limits?: Partial<SandboxLimits>,
): SandboxFactory {
  return async (options, resolved) => {
    const inner = await (await localBackend.load())({ ...options, backend: "local" }, { ...resolved, ...limits });
    return {
      backend: name,
      isolation: inner.isolation,
      warnings: inner.warnings,
      capabilities,
      exec: (req, signal) => inner.exec(req, signal),
      execMany: (reqs, signal) => inner.execMany(reqs, signal),
      close: () => inner.close(),
    };
  };
}

const stub = defineSandboxBackend({
  name: "conformance-stub",
  summary: "the local backend under another name, claiming only the common contract",
  isolationLevels: ["bwrap", "unshare", "none"],
  fullIsolation: ["bwrap"],
  capabilities: new Set([]),
  preflight: { env: [], programs: [], unavailableFix: "" },
  selectionEnv: { names: [], prefixes: [] },
  load: async () => delegate("conformance-stub", new Set()),
});

describeConformance(stub, {
  notApplicable: [
    "limits.memory",
    "limits.processes",
    "network.none",
    "environments.exec",
    "environments.files",
    "environments.timeout",
    "environments.teardown",
  ],
});

describe("a backend that claims more than it does", () => {
  const leaky = defineSandboxBackend({
    ...stub,
    name: "conformance-leaky",
    guarantees: ["memory-limit", "process-limit", "no-network"],
    // The suite's limits are replaced by ones far above what its checks use.
    load: async () =>
      delegate("conformance-leaky", new Set(), {
        memoryBytes: 8 * 1024 * 1024 * 1024,
        maxProcesses: 4096,
        maxOutputBytes: 64 * 1024 * 1024,
      }),
  });

  test("fails exactly the limits it claims and does not keep, and says what it saw", async () => {
    const results = await runConformance(leaky, {
      only: ["exec.exit-codes", "limits.output", "limits.memory", "limits.processes", "network.none"],
    });
    const status = Object.fromEntries(results.map((r) => [r.check, r.status]));
    expect(status).toEqual({
      "exec.exit-codes": "passed",
      "limits.output": "failed",
      "limits.memory": "failed",
      "limits.processes": "failed",
      "network.none": "passed",
    });
    const detail = Object.fromEntries(results.map((r) => [r.check, r.detail]));
    expect(detail["limits.output"]).toContain("did not exceed the 65536-byte cap");
    expect(detail["limits.memory"]).toContain("MiB were allocated under a 256 MiB limit");
    expect(detail["limits.processes"]).toContain("processes forked beside the program under a limit of 32");
    expect(formatConformance("conformance-leaky", results)).toContain(
      "conformance-leaky: 2 passed, 3 failed, 0 not applicable",
    );
  }, 1_800_000);

  test("a sandbox that cannot be created fails every check with the reason (never not applicable)", async () => {
    const broken = defineSandboxBackend({
      ...stub,
      name: "conformance-broken",
      load: async (): Promise<SandboxFactory> => () => Promise.reject(new Error("no engine here")),
    });
    const results = await runConformance(broken, { only: ["exec.exit-codes", "limits.output"] });
    expect(results.map((r) => [r.status, r.detail])).toEqual([
      ["failed", "the conformance-broken sandbox cannot be created: no engine here"],
      ["failed", "the conformance-broken sandbox cannot be created: no engine here"],
    ]);
  });
});
