/**
 * Identity of a process we started. A pid alone is not an identity: pids are
 * reused, so a pid file records the start time (field 22 of /proc/<pid>/stat,
 * clock ticks since boot) and the command line, and every later signal is
 * sent only if both still match. /proc itself is read by process/proc-scan.ts.
 */
import { procInfo, type ProcInfo } from "../process/proc-scan.js";

/** Recorded identity of a process we started. */
export interface ProcIdentity {
  pid: number;
  startTime: number;
  cmdline: string[];
}

/** Verdict on a recorded identity: still ours, gone, or the pid now belongs to someone else. */
export type Ownership = { kind: "ours"; info: ProcInfo } | { kind: "gone" } | { kind: "reused"; reason: string };

/** Compare a recorded identity with what /proc says now. */
export function checkOwnership(id: ProcIdentity, read: (pid: number) => ProcInfo | undefined = procInfo): Ownership {
  const info = read(id.pid);
  if (!info) return { kind: "gone" };
  if (info.startTime !== id.startTime)
    return { kind: "reused", reason: `pid ${id.pid} started at tick ${info.startTime}, ours at ${id.startTime}` };
  if (id.cmdline.length > 0 && info.cmdline.join("\0") !== id.cmdline.join("\0"))
    return { kind: "reused", reason: `pid ${id.pid} runs "${info.cmdline.join(" ")}", not ours` };
  return { kind: "ours", info };
}
