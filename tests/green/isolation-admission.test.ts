import { describe, expect, it } from "vitest";
import { refusedIsolationLevel } from "../../src/green/isolation-admission.js";
import { sandboxBackend } from "../../src/sandbox/registry.js";
import type { SandboxBackendDescriptor } from "../../src/sandbox/backend.js";

const local = sandboxBackend("local");
/** A backend that runs on this host through the local one, under another name (as the scaffold's). */
const delegating: SandboxBackendDescriptor = { ...local, name: "on-host" };
/** A backend with a weak level whose level nothing can tell before a run. */
const unprobed: SandboxBackendDescriptor = { ...local, name: "elsewhere", hostIsolation: false };

describe("the green's isolation check asks the backend's descriptor", () => {
  it("a backend whose every level is full is accepted without probing", async () => {
    let probed = 0;
    const probe = async () => (probed++, "none");
    expect(await refusedIsolationLevel(sandboxBackend("docker"), probe)).toBeUndefined();
    expect(probed).toBe(0);
  });

  it("a backend on this host, whatever its name, is checked against the host's probe", async () => {
    for (const b of [local, delegating]) {
      expect(await refusedIsolationLevel(b, async () => "bwrap"), b.name).toBeUndefined();
      expect(await refusedIsolationLevel(b, async () => "unshare"), b.name).toBe("unshare");
    }
  });

  it("a backend with weak levels and no probe is refused at its weak level", async () => {
    expect(await refusedIsolationLevel(unprobed, async () => "bwrap")).toBe("unshare");
  });
});
