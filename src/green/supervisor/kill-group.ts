/**
 * Process-group signalling. Runners are spawned `detached`, so each leads its
 * own group (pgid == pid) and one negative-pid kill reaches the runner and
 * every descendant that did not leave the group.
 */
import { readdirSync, readFileSync } from "node:fs";

/** Send `signal` to the whole group; false when the group no longer exists. */
export function killGroup(pgid: number, signal: NodeJS.Signals): boolean {
  try {
    process.kill(-pgid, signal);
    return true;
  } catch {
    return false;
  }
}

/**
 * Whether any live (non-zombie) process of the group remains. Signal 0 probes
 * without signalling, but it also succeeds for zombies an init that does not
 * reap leaves behind; on Linux /proc tells them apart.
 */
export function groupAlive(pgid: number): boolean {
  try {
    process.kill(-pgid, 0);
  } catch (err) {
    // EPERM means it exists but belongs to someone else: still alive.
    return (err as NodeJS.ErrnoException).code === "EPERM";
  }
  const members = liveGroupMembers(pgid);
  return members === undefined || members.length > 0;
}

/** Pids of the group's non-zombie processes from /proc; undefined where /proc is unavailable. */
export function liveGroupMembers(pgid: number): number[] | undefined {
  let entries: string[];
  try {
    entries = readdirSync("/proc");
  } catch {
    return undefined;
  }
  const live: number[] = [];
  for (const name of entries) {
    if (!/^\d+$/.test(name)) continue;
    let stat: string;
    try {
      stat = readFileSync(`/proc/${name}/stat`, "utf8");
    } catch {
      continue; // exited meanwhile
    }
    // Format: pid (comm) state ppid pgrp ... — comm may contain spaces/parens.
    const rest = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
    const state = rest[0];
    const pgrp = Number(rest[2]);
    if (pgrp === pgid && state !== "Z" && state !== "X") live.push(Number(name));
  }
  return live;
}

/** Poll every `pollMs` until the group is gone or `timeoutMs` elapses; resolves whether it is gone. */
export function waitGroupGone(pgid: number, timeoutMs: number, pollMs = 25): Promise<boolean> {
  return new Promise((resolve) => {
    const deadline = Date.now() + timeoutMs;
    const tick = () => {
      if (!groupAlive(pgid)) return resolve(true);
      if (Date.now() >= deadline) return resolve(false);
      setTimeout(tick, pollMs).unref();
    };
    tick();
  });
}
