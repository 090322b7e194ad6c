/**
 * `scenario --kill`: stop what the pid file records, and only that. Each
 * process group is signalled only when its leader is still the process we
 * started (same start time and command line); a reused pid is refused and
 * reported. Nothing is ever chosen by port.
 */
import { readPidFile, removePidFile } from "./pid-file.js";
import { inspectPidFile } from "./state.js";
import { groupMembers, stopGroup, DEFAULT_GRACE_MS, type ProcInfo } from "../process/index.js";

/** Per-agent result of a kill. */
export type KillVerdict =
  | { name: string; pid: number; action: "stopped"; forcefullyTerminated: boolean }
  | { name: string; pid: number; action: "already-gone" }
  | { name: string; pid: number; action: "refused"; reason: string };

export interface KillReport {
  /** False when there was no pid file. */
  hadPidFile: boolean;
  verdicts: KillVerdict[];
  /** The foreground manager that owned the launch was sent SIGTERM. */
  ownerSignalled: boolean;
  /** Pid file removed (it is kept when a refusal leaves something unexplained). */
  pidFileRemoved: boolean;
}

/** Members of a group whose leader is gone but which started after our leader (i.e. its children, not strangers). */
function orphansOf(pgid: number, leaderStart: number): ProcInfo[] {
  return groupMembers(pgid).filter((m) => m.startTime >= leaderStart);
}

/** Stop the scenario recorded in `dir`'s pid file. */
export async function killScenario(dir: string, graceMs = DEFAULT_GRACE_MS): Promise<KillReport> {
  const pidFile = readPidFile(dir);
  if (!pidFile) return { hadPidFile: false, verdicts: [], ownerSignalled: false, pidFileRemoved: false };
  const state = await inspectPidFile(pidFile, { probeCards: false });

  // The foreground manager would otherwise notice its agents dying and exit non-zero; tell it first.
  let ownerSignalled = false;
  if (state.owner.kind === "ours" && pidFile.owner.kind === "scenario-manager" && pidFile.owner.pid !== process.pid) {
    try {
      process.kill(pidFile.owner.pid, "SIGTERM");
      ownerSignalled = true;
    } catch {
      // Gone meanwhile.
    }
  }

  const verdicts = await Promise.all(
    state.agents.map(async ({ agent, ownership }): Promise<KillVerdict> => {
      switch (ownership.kind) {
        case "ours": {
          const out = await stopGroup(agent.pgid, graceMs);
          return {
            name: agent.name,
            pid: agent.pid,
            action: "stopped",
            forcefullyTerminated: out.forcefullyTerminated,
          };
        }
        case "gone": {
          // Leader exited; children it left in its group are still ours (a group id is not reused while members live).
          if (orphansOf(agent.pgid, agent.startTime).length > 0) {
            const out = await stopGroup(agent.pgid, graceMs);
            return {
              name: agent.name,
              pid: agent.pid,
              action: "stopped",
              forcefullyTerminated: out.forcefullyTerminated,
            };
          }
          return { name: agent.name, pid: agent.pid, action: "already-gone" };
        }
        case "reused":
          return { name: agent.name, pid: agent.pid, action: "refused", reason: ownership.reason };
      }
    }),
  );
  // A refused pid is someone else's process now: ours is gone, so the file is stale either way; remove it.
  removePidFile(dir);
  return { hadPidFile: true, verdicts, ownerSignalled, pidFileRemoved: true };
}
