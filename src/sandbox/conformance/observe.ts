/**
 * How the conformance suite sees a backend's processes from outside: a job
 * starts `sleep` with a unique number as its argument (the marker), and an
 * observer counts the processes whose command line holds it. This host's
 * /proc sees every process of its kernel, containers of a local engine
 * included; a backend on another machine passes its own observer, or none
 * (the checks that need one are then not applicable).
 */
import { readdir, readFile } from "node:fs/promises";
import { randomInt } from "node:crypto";

/** Counts the processes whose command line holds a marker. */
export interface ProcessObserver {
  count(marker: string): Promise<number>;
}

/** The processes of this host's kernel (/proc). */
export const hostProcesses: ProcessObserver = {
  async count(marker: string): Promise<number> {
    let n = 0;
    for (const pid of await readdir("/proc")) {
      if (!/^\d+$/.test(pid) || Number(pid) === process.pid) continue;
      const cmdline = await readFile(`/proc/${pid}/cmdline`, "latin1").catch(() => "");
      if (cmdline.split("\0").includes(marker)) n++;
    }
    return n;
  },
};

/** A fresh marker: a `sleep` duration no other process uses (about 50 minutes, with 9 random decimals). */
export function newMarker(): string {
  return `3000.${String(randomInt(1e8, 1e9))}`;
}

/** Poll `observer` until `accept(count)` holds or `withinMs` passes; returns the last count. */
export async function waitForCount(
  observer: ProcessObserver,
  marker: string,
  accept: (n: number) => boolean,
  withinMs: number,
  until?: Promise<unknown>,
): Promise<number> {
  const deadline = Date.now() + withinMs;
  let settled = false;
  void until?.then(
    () => (settled = true),
    () => (settled = true),
  );
  for (;;) {
    const n = await observer.count(marker);
    if (accept(n) || Date.now() > deadline || settled) return n;
    await new Promise((r) => setTimeout(r, 100));
  }
}
