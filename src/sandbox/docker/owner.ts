/**
 * Who owns a container: labels naming this process (pid + its start time in
 * clock ticks since boot, from /proc/<pid>/stat, so a recycled pid is not
 * mistaken for the owner) and host. The reaper (reaper.ts) removes the
 * containers whose owner is gone.
 */
import { readFileSync } from "node:fs";
import { hostname } from "node:os";

/** Label every container we create carries (the reaper's and cleanup's filter). */
export const MANAGED_LABEL = "a2a-bench.managed";
export const OWNER_PID_LABEL = "a2a-bench.owner-pid";
export const OWNER_START_LABEL = "a2a-bench.owner-start";
export const OWNER_HOST_LABEL = "a2a-bench.owner-host";
/** Free-form owner name (run id, test name), for people and `docker ps --filter`. */
export const OWNER_LABEL = "a2a-bench.owner";

/** Start time of `pid` (field 22 of /proc/<pid>/stat), or null when the process does not exist. */
export function processStartTime(pid: number): string | null {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, "utf8");
    // The command name (field 2) may contain spaces and parentheses: fields after the last ')'.
    const fields = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
    return fields[19] ?? null;
  } catch {
    return null;
  }
}

/** `--label` arguments naming this process as owner. */
export function ownerLabelArgs(owner: string): string[] {
  const labels: Record<string, string> = {
    [MANAGED_LABEL]: "1",
    [OWNER_LABEL]: owner,
    [OWNER_PID_LABEL]: String(process.pid),
    [OWNER_START_LABEL]: processStartTime(process.pid) ?? "unknown",
    [OWNER_HOST_LABEL]: hostname(),
  };
  return Object.entries(labels).flatMap(([k, v]) => ["--label", `${k}=${v}`]);
}

/** Whether the owner named by these label values is alive on this host (unknown hosts count as alive). */
export function ownerAlive(pid: string, start: string, host: string): boolean {
  if (host !== hostname()) return true;
  const n = Number(pid);
  if (!Number.isInteger(n) || n <= 0) return false;
  const now = processStartTime(n);
  return now !== null && now === start;
}
