/**
 * The one /proc reader (Linux): what a process is (state, group, start time,
 * command line) and which live processes belong to a process group. Group
 * membership is how a supervisor knows a group is really gone: signal 0 also
 * succeeds for zombies an init that does not reap leaves behind, /proc tells
 * them apart.
 */
import { readdirSync, readFileSync } from "node:fs";

/** What /proc says about one process. */
export interface ProcInfo {
  pid: number;
  /** Single-letter state (`R`, `S`, `Z` zombie, ...). */
  state: string;
  /** Process group id. */
  pgid: number;
  /** Start time, clock ticks after boot (stable for the process's life). */
  startTime: number;
  /** argv as recorded by the kernel. */
  cmdline: string[];
}

/** The fields of /proc/<pid>/stat we use. */
export interface ProcStat {
  state: string;
  pgid: number;
  startTime: number;
}

/** Parse the content of /proc/<pid>/stat (the comm field may contain spaces and parens). */
export function parseStat(stat: string): ProcStat | undefined {
  const close = stat.lastIndexOf(")");
  if (close < 0) return undefined;
  // Fields after "comm)": 3=state 4=ppid 5=pgrp ... 22=starttime → indexes 0,1,2,...,19.
  const rest = stat
    .slice(close + 2)
    .trim()
    .split(/\s+/);
  const state = rest[0];
  const pgid = Number(rest[2]);
  const startTime = Number(rest[19]);
  if (state === undefined || !Number.isFinite(pgid) || !Number.isFinite(startTime)) return undefined;
  return { state, pgid, startTime };
}

/** A zombie (`Z`) or dead (`X`) entry: exited, only waiting to be reaped. */
function isDead(state: string): boolean {
  return state === "Z" || state === "X";
}

function readStat(pid: number): ProcStat | undefined {
  try {
    return parseStat(readFileSync(`/proc/${pid}/stat`, "utf8"));
  } catch {
    return undefined; // exited meanwhile
  }
}

function readCmdline(pid: number): string[] | undefined {
  try {
    return readFileSync(`/proc/${pid}/cmdline`, "utf8")
      .split("\0")
      .filter((s) => s !== "");
  } catch {
    return undefined;
  }
}

/** /proc info of a live (non-zombie) process, or undefined when it is gone. */
export function procInfo(pid: number): ProcInfo | undefined {
  const stat = readStat(pid);
  if (!stat || isDead(stat.state)) return undefined;
  const cmdline = readCmdline(pid);
  return cmdline === undefined ? undefined : { pid, ...stat, cmdline };
}

/**
 * Live (non-zombie) processes of group `pgid`; undefined where /proc cannot be
 * read. Only members' command lines are read, so a scan costs one stat read
 * per process on the host.
 */
export function readGroupMembers(pgid: number): ProcInfo[] | undefined {
  let entries: string[];
  try {
    entries = readdirSync("/proc");
  } catch {
    return undefined;
  }
  const members: ProcInfo[] = [];
  for (const name of entries) {
    if (!/^\d+$/.test(name)) continue;
    const pid = Number(name);
    const stat = readStat(pid);
    if (!stat || stat.pgid !== pgid || isDead(stat.state)) continue;
    members.push({ pid, ...stat, cmdline: readCmdline(pid) ?? [] });
  }
  return members;
}

/** Live processes whose process group is `pgid` ([] where /proc cannot be read). */
export function groupMembers(pgid: number): ProcInfo[] {
  return readGroupMembers(pgid) ?? [];
}
