/**
 * What the local backend offers at a probed isolation level (capabilities.ts): a host work dir at
 * every level; binds and uid 0 in a user namespace only inside bubblewrap (elsewhere nothing would
 * keep the rest of the host away from them); copy-on-write overlays only inside bubblewrap on a root
 * host with unshare(1), which mounts them. Never `environments`: the SWE-bench host path drives git
 * worktrees on the host and runs only the tests in the sandbox.
 */
import type { SandboxCapability } from "../capabilities.js";
import type { IsolationProbe } from "./probe.js";

export function localCapabilities(probe: Pick<IsolationProbe, "level" | "tools">): ReadonlySet<SandboxCapability> {
  const caps = new Set<SandboxCapability>(["host-workdir"]);
  if (probe.level === "bwrap") {
    caps.add("host-binds");
    caps.add("userns-root");
    if (probe.tools.isRoot && probe.tools.unshare !== null) caps.add("overlays");
  }
  return caps;
}
