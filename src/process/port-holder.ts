/**
 * Which processes listen on a TCP port (Linux): the kernel's socket tables
 * (/proc/net/tcp, /proc/net/tcp6) give the inode of each listening socket, and
 * a process holding one has a `socket:[inode]` link among its /proc/<pid>/fd.
 * What `ss -ltnp` shows, without running it. Used to say who holds a port, never
 * to choose what to kill. Only the processes whose fds we may read are found
 * (ours, or all as root); the rest of /proc is read by proc-scan.ts.
 */
import { readdirSync, readFileSync, readlinkSync } from "node:fs";

/** `st` of a listening socket in /proc/net/tcp (include/net/tcp_states.h: TCP_LISTEN = 10). */
const TCP_LISTEN = "0A";

/** Inodes of the listening sockets on `port` in one /proc/net/tcp{,6} table (any local address). */
export function listeningInodes(table: string, port: number): Set<string> {
  const inodes = new Set<string>();
  for (const line of table.split("\n").slice(1)) {
    // sl local_address rem_address st tx:rx tr:when retrnsmt uid timeout inode ...
    const f = line.trim().split(/\s+/);
    const local = f[1];
    if (local === undefined || f[3] !== TCP_LISTEN || f[9] === undefined) continue;
    const hexPort = local.slice(local.lastIndexOf(":") + 1);
    if (parseInt(hexPort, 16) === port && f[9] !== "0") inodes.add(f[9]);
  }
  return inodes;
}

/**
 * Pids holding a listening socket on `port`, lowest first; [] when none is found (free, or held
 * by a process whose fds we may not read); undefined when the socket tables cannot be read.
 */
export function listeningPids(port: number, proc = "/proc"): number[] | undefined {
  const inodes = new Set<string>();
  let readAny = false;
  for (const table of ["net/tcp", "net/tcp6"]) {
    try {
      for (const i of listeningInodes(readFileSync(`${proc}/${table}`, "utf8"), port)) inodes.add(i);
      readAny = true;
    } catch {
      // No IPv6 (or no /proc): the other table may still answer.
    }
  }
  if (!readAny) return undefined;
  if (inodes.size === 0) return [];
  const links = new Set([...inodes].map((i) => `socket:[${i}]`));
  const pids: number[] = [];
  let entries: string[];
  try {
    entries = readdirSync(proc);
  } catch {
    return [];
  }
  for (const name of entries) {
    if (!/^\d+$/.test(name)) continue;
    let fds: string[];
    try {
      fds = readdirSync(`${proc}/${name}/fd`);
    } catch {
      continue; // not ours to read, or gone
    }
    for (const fd of fds) {
      let target: string;
      try {
        target = readlinkSync(`${proc}/${name}/fd/${fd}`);
      } catch {
        continue;
      }
      if (links.has(target)) {
        pids.push(Number(name));
        break;
      }
    }
  }
  return pids.sort((a, b) => a - b);
}
