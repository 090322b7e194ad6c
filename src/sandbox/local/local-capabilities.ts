/**
 * What the local backend offers at a probed isolation level (capabilities.ts): a host work dir at
 * every level; binds and uid 0 in a user namespace only inside bubblewrap (elsewhere nothing would
 * keep the rest of the host away from them); copy-on-write overlays only inside bubblewrap on a root
 * host with unshare(1), which mounts them. `environments` (local-environment.ts) only inside
 * bubblewrap, and on a root host only with setpriv (else its commands would run as root): below
 * bwrap nothing would keep the host's files, network or processes away from an environment. Never
 * `images`: an environment shows this host's system, not a container image.
 */
import type { SandboxCapability } from "../capabilities.js";
import type { IsolationProbe } from "./probe.js";

export function localCapabilities(probe: Pick<IsolationProbe, "level" | "tools">): ReadonlySet<SandboxCapability> {
  const caps = new Set<SandboxCapability>(["host-workdir"]);
  if (probe.level === "bwrap") {
    caps.add("host-binds");
    caps.add("userns-root");
    if (!probe.tools.isRoot || probe.tools.setpriv !== null) caps.add("environments");
    if (probe.tools.isRoot && probe.tools.unshare !== null) caps.add("overlays");
  }
  return caps;
}
