/**
 * Stop one process group we hold no child handle for (a scenario agent seen
 * through its pid file, a leader that already exited): SIGTERM, wait the
 * grace, SIGKILL what is left. The caller checks the recorded identity before
 * (see scenario/proc-info.ts); a group whose members are all gone is a no-op.
 */
import { groupMembers } from "./proc-scan.js";
import { signalGroup, waitGroupGone } from "./kill-group.js";
import { DEFAULT_GRACE_MS, KILL_REAP_MS } from "./grace.js";

/**
 * Flat outcome of stopping one group (same shape whatever happened): the
 * group-level counterpart of {@link ProcessOutcome}'s termination fields.
 */
export interface StopOutcome {
  pgid: number;
  /** A SIGTERM was delivered. */
  terminated: boolean;
  /** SIGKILL was needed after the grace (ProcessOutcome's `isForcefullyTerminated`). */
  forcefullyTerminated: boolean;
  /** Members still alive after SIGKILL + {@link KILL_REAP_MS} (should be 0). */
  survivors: number;
  durationMs: number;
}

/** TERM the group, KILL after `graceMs` (default {@link DEFAULT_GRACE_MS}); resolves when the group is empty. */
export async function stopGroup(pgid: number, graceMs = DEFAULT_GRACE_MS): Promise<StopOutcome> {
  const started = performance.now();
  const terminated = signalGroup(pgid, "SIGTERM");
  let forcefullyTerminated = false;
  if (terminated && !(await waitGroupGone(pgid, graceMs))) {
    forcefullyTerminated = signalGroup(pgid, "SIGKILL");
    await waitGroupGone(pgid, KILL_REAP_MS);
  }
  return {
    pgid,
    terminated,
    forcefullyTerminated,
    survivors: groupMembers(pgid).length,
    durationMs: Math.round(performance.now() - started),
  };
}
