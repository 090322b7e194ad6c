/**
 * Stop one process group: SIGTERM, wait a named grace, SIGKILL what is left.
 * The group id is only signalled after the caller has checked the recorded
 * identity (see proc-info.ts); a group whose members are all gone is a no-op.
 */
import { groupMembers } from "./proc-info.js";

/** Grace between SIGTERM and SIGKILL, ms. smi_bench's green waits 5 s for its runner; agents get the same. */
export const STOP_GRACE_MS = 5_000;
/** Poll interval while waiting for a group to empty, ms. */
const POLL_MS = 50;

/** Flat outcome of stopping one group (same shape whatever happened). */
export interface StopOutcome {
  pgid: number;
  /** A SIGTERM was delivered. */
  terminated: boolean;
  /** SIGKILL was needed after the grace. */
  forcefullyTerminated: boolean;
  /** Members still alive after SIGKILL + 1 s (should be 0). */
  survivors: number;
  durationMs: number;
}

function signalGroup(pgid: number, signal: NodeJS.Signals): boolean {
  try {
    process.kill(-pgid, signal);
    return true;
  } catch {
    return false; // ESRCH: group already empty.
  }
}

async function waitEmpty(pgid: number, ms: number): Promise<boolean> {
  const deadline = Date.now() + ms;
  for (;;) {
    if (groupMembers(pgid).length === 0) return true;
    if (Date.now() >= deadline) return false;
    await new Promise((r) => setTimeout(r, POLL_MS));
  }
}

/** TERM the group, KILL after `graceMs`; resolves when the group is empty (or gave up 1 s after KILL). */
export async function stopGroup(pgid: number, graceMs = STOP_GRACE_MS): Promise<StopOutcome> {
  const started = Date.now();
  const terminated = signalGroup(pgid, "SIGTERM");
  let forcefullyTerminated = false;
  if (terminated && !(await waitEmpty(pgid, graceMs))) {
    forcefullyTerminated = signalGroup(pgid, "SIGKILL");
    await waitEmpty(pgid, 1_000);
  }
  return {
    pgid,
    terminated,
    forcefullyTerminated,
    survivors: groupMembers(pgid).length,
    durationMs: Date.now() - started,
  };
}

/** Last-resort synchronous SIGKILL of groups (from a process 'exit' handler, where nothing async runs). */
export function killGroupsSync(pgids: readonly number[]): void {
  for (const pgid of pgids) signalGroup(pgid, "SIGKILL");
}
