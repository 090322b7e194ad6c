/**
 * The run's `events.jsonl`: one JSON line per runner event, appended
 * synchronously (a crash loses no event already reported on stdout). The file
 * stays open for the run — why: reopening it per event (appendFileSync on a
 * path) cost an open/close pair for each of the ~3 events per item.
 */
import { closeSync, openSync, writeSync } from "node:fs";
import type { RunnerEvent } from "./protocol.js";

export interface EventLog {
  /** Append `event` with a `ts` (Unix seconds, ms resolution) first. */
  append(event: RunnerEvent): void;
  /** Close the file; later appends reopen it (a run that is reused after close still logs). */
  close(): void;
}

/** Open (create or append to) the events file at `path`. */
export function openEventLog(path: string): EventLog {
  let fd: number | null = null;
  return {
    append(event) {
      fd ??= openSync(path, "a");
      writeSync(fd, JSON.stringify({ ts: Date.now() / 1000, ...event }) + "\n");
    },
    close() {
      if (fd !== null) closeSync(fd);
      fd = null;
    },
  };
}
