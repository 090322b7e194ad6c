/**
 * The second line of cleanup: removes containers whose owner process is dead
 * (see owner.ts). The first line is the container's own main process, which
 * exits when its owner's stdin pipe closes (keepalive.ts); the reaper covers
 * what that cannot (an engine restarted mid-run, a container stuck before its
 * main process started). Runs at every docker sandbox creation (SWE-bench's
 * environments are that sandbox's, so its run is covered too).
 */
import type { Logger } from "../../util/logger.js";
import { docker } from "./docker-cli.js";
import { MANAGED_LABEL, OWNER_HOST_LABEL, OWNER_PID_LABEL, OWNER_START_LABEL, ownerAlive } from "./owner.js";

/** Remove every managed container of a dead owner; returns their ids. Never throws. */
export async function reapOrphans(env: NodeJS.ProcessEnv, logger?: Logger): Promise<string[]> {
  const fmt = `{{.ID}}\t{{.Label "${OWNER_PID_LABEL}"}}\t{{.Label "${OWNER_START_LABEL}"}}\t{{.Label "${OWNER_HOST_LABEL}"}}`;
  const ls = await docker(["ps", "-a", "--no-trunc", "--filter", `label=${MANAGED_LABEL}=1`, "--format", fmt], { env });
  if (ls.exitCode !== 0) {
    logger?.warn({ err: ls.stderr.trim() || ls.spawnError }, "docker reaper: cannot list containers");
    return [];
  }
  const dead = ls.stdout
    .split("\n")
    .filter(Boolean)
    .map((l) => l.split("\t"))
    .filter(([, pid, start, host]) => !ownerAlive(pid ?? "", start ?? "", host ?? ""));
  const ids = dead.map(([id]) => id!);
  if (ids.length === 0) return [];
  const rm = await docker(["rm", "-f", "-v", ...ids], { env });
  if (rm.exitCode !== 0) logger?.warn({ err: rm.stderr.trim() }, "docker reaper: removing orphans failed");
  else logger?.info({ count: ids.length }, "docker reaper: removed containers of dead owners");
  return ids;
}
