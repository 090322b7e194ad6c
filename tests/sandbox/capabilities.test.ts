import { describe, expect, it } from "vitest";
import {
  CAPABILITY_FIX,
  refusedRequest,
  requestCapabilities,
  requireCapabilities,
  SandboxCapabilityError,
  SANDBOX_CAPABILITIES,
  type SandboxCapability,
} from "../../src/sandbox/capabilities.js";
import { environmentsOf } from "../../src/sandbox/environment.js";
import type { Sandbox } from "../../src/sandbox/types.js";
import { InfrastructureError } from "../../src/util/infrastructure-error.js";

const never = (): never => {
  throw new Error("nothing may run");
};
/** A backend offering exactly `caps`. */
function fake(caps: SandboxCapability[], extra: Partial<Sandbox> = {}): Sandbox {
  return {
    backend: "e2b",
    isolation: "e2b",
    warnings: [],
    capabilities: new Set(caps),
    exec: never,
    execMany: never,
    close: async () => {},
    ...extra,
  };
}

describe("sandbox capabilities", () => {
  it("a caller needing a capability the backend lacks is refused with a typed error naming the backend, the capability and the fix", () => {
    const box = fake(["host-workdir"]);
    let err: unknown;
    try {
      requireCapabilities(box, ["host-workdir", "overlays"], "redcode");
    } catch (e) {
      err = e;
    }
    expect(err).toBeInstanceOf(SandboxCapabilityError);
    // An infrastructure error: the runner stops the run, never a score.
    expect(err).toBeInstanceOf(InfrastructureError);
    expect(err).toMatchObject({
      code: "E_SANDBOX_CAPABILITY",
      backend: "e2b",
      capability: "overlays",
      caller: "redcode",
    });
    const message = (err as Error).message;
    expect(message).toContain("redcode needs the sandbox capability 'overlays'");
    expect(message).toContain("the e2b backend");
    expect(message).toContain(`fix: ${CAPABILITY_FIX.overlays}`);
  });

  it("what a backend declares is accepted", () => {
    expect(() => requireCapabilities(fake([...SANDBOX_CAPABILITIES]), SANDBOX_CAPABILITIES, "x")).not.toThrow();
    expect(() => requireCapabilities(fake([]), [], "x")).not.toThrow();
  });

  it("every capability has a fix to name", () => {
    for (const c of SANDBOX_CAPABILITIES) expect(CAPABILITY_FIX[c].length).toBeGreaterThan(10);
  });

  it("a request's host-facing fields are the capabilities it needs; a plain program needs none", () => {
    expect(requestCapabilities({ language: "python", code: "", timeoutMs: 1, files: { a: "b" }, env: {} })).toEqual([]);
    expect(
      requestCapabilities({
        language: "bash",
        code: "",
        timeoutMs: 1,
        workDir: "/w",
        binds: [{ host: "/h", target: "/t", writable: false }],
        overlays: [{ target: "/etc", upperDir: "/u" }],
        asRoot: true,
      }),
    ).toEqual(["host-workdir", "host-binds", "overlays", "userns-root"]);
    // Empty lists and asRoot: false use nothing.
    expect(
      requestCapabilities({ language: "bash", code: "", timeoutMs: 1, binds: [], overlays: [], asRoot: false }),
    ).toEqual([]);
  });

  it("a request is refused by every capability it needs and lacks, never silently run without one", () => {
    const req = { language: "bash" as const, code: "", timeoutMs: 1, workDir: "/w", asRoot: true };
    expect(refusedRequest(fake(["host-workdir", "userns-root"]), req)).toBeNull();
    const why = refusedRequest(fake(["host-workdir"]), req)!;
    expect(why).toContain("the e2b backend lacks the capability 'userns-root'");
    const both = refusedRequest(fake([]), req)!;
    expect(both).toContain("capabilities 'host-workdir', 'userns-root'");
  });
});

describe("environmentsOf", () => {
  it("refuses a backend without environments, naming it", () => {
    expect(() => environmentsOf(fake(["host-workdir"]), "swebench")).toThrow(
      expect.objectContaining({ code: "E_SANDBOX_CAPABILITY", capability: "environments", backend: "e2b" }),
    );
  });

  it("refuses a backend that declares environments without the method to open one (fail closed)", () => {
    expect(() => environmentsOf(fake(["environments"]), "swebench")).toThrow(SandboxCapabilityError);
  });

  it("opens through the backend's own method", async () => {
    const specs: unknown[] = [];
    const box = fake(["environments"], {
      openEnvironment: async (spec) => {
        specs.push(spec);
        throw new Error("engine says no");
      },
    });
    await expect(environmentsOf(box, "swebench").openEnvironment({ image: "i", owner: "o" })).rejects.toThrow(
      "engine says no",
    );
    expect(specs).toEqual([{ image: "i", owner: "o" }]);
  });
});
