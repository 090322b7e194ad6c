/**
 * Identity of a process from /proc (Linux). A pid alone is not an identity:
 * pids are reused, so a pid file records the start time (field 22 of
 * /proc/<pid>/stat, clock ticks since boot) and the command line, and every
 * later signal is sent only if both still match.
 */
import { readFileSync, readdirSync } from "node:fs";

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

/** Parse the content of /proc/<pid>/stat (the comm field may contain spaces and parens). */
export function parseStat(stat: string): { state: string; pgid: number; startTime: number } | undefined {
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

/** /proc info of a live (non-zombie) process, or undefined when it is gone. */
export function procInfo(pid: number): ProcInfo | undefined {
  try {
    const parsed = parseStat(readFileSync(`/proc/${pid}/stat`, "utf8"));
    if (!parsed || parsed.state === "Z" || parsed.state === "X") return undefined;
    const cmdline = readFileSync(`/proc/${pid}/cmdline`, "utf8")
      .split("\0")
      .filter((s) => s !== "");
    return { pid, ...parsed, cmdline };
  } catch {
    return undefined;
  }
}

/** Live processes whose process group is `pgid`. */
export function groupMembers(pgid: number): ProcInfo[] {
  const out: ProcInfo[] = [];
  let entries: string[];
  try {
    entries = readdirSync("/proc");
  } catch {
    return out;
  }
  for (const e of entries) {
    if (!/^\d+$/.test(e)) continue;
    const info = procInfo(Number(e));
    if (info && info.pgid === pgid) out.push(info);
  }
  return out;
}

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
