/**
 * Process-group signalling. Children are spawned `detached`, so each leads its
 * own group (pgid == pid) and one negative-pid kill reaches it and every
 * descendant that did not leave the group.
 */
import { readGroupMembers } from "./proc-scan.js";
import { GROUP_POLL_MS } from "./grace.js";

/** Send `signal` to the whole group; false when the group no longer exists (ESRCH). */
export function signalGroup(pgid: number, signal: NodeJS.Signals): boolean {
  try {
    process.kill(-pgid, signal);
    return true;
  } catch {
    return false;
  }
}

/**
 * Whether any live (non-zombie) process of the group remains. Signal 0 probes
 * without signalling; only when it finds the group is /proc read, to tell live
 * members from zombies.
 */
export function groupAlive(pgid: number): boolean {
  try {
    process.kill(-pgid, 0);
  } catch (err) {
    // EPERM means it exists but belongs to someone else: still alive.
    return (err as NodeJS.ErrnoException).code === "EPERM";
  }
  const members = readGroupMembers(pgid);
  return members === undefined || members.length > 0;
}

/**
 * Poll every `pollMs` until the group is gone or `timeoutMs` elapses; resolves whether it is gone.
 * The poll timer is deliberately NOT unref'd: the leader may already be reaped, so nothing else may hold
 * the event loop, and a caller awaiting this (a CLI stopping its scenario) must not see Node exit mid-stop.
 */
export function waitGroupGone(pgid: number, timeoutMs: number, pollMs = GROUP_POLL_MS): Promise<boolean> {
  return new Promise((resolve) => {
    const deadline = Date.now() + timeoutMs;
    const tick = () => {
      if (!groupAlive(pgid)) return resolve(true);
      if (Date.now() >= deadline) return resolve(false);
      setTimeout(tick, pollMs);
    };
    tick();
  });
}

/** Synchronous SIGKILL of groups (from a process 'exit' handler, where nothing async runs). */
export function killGroupsSync(pgids: Iterable<number>): void {
  for (const pgid of pgids) signalGroup(pgid, "SIGKILL");
}
