/**
 * Reading a run's own files as they are on disk, per request, tolerating a
 * run still being written: a missing file is null, a JSONL's unfinished last
 * line is skipped (jsonl.ts), an unreadable JSON file is reported, not thrown.
 *
 * A run's own files (results.json, checkpoint.jsonl, events.jsonl, …) are
 * opened without following a symbolic link and only when they are regular
 * files: a participant that planted `results.json -> ~/.aws/credentials` or
 * a named pipe gets a clear refusal, not the secret or a hung viewer.
 */
import { constants, type Stats } from "node:fs";
import { lstat, open, type FileHandle } from "node:fs/promises";
import { join } from "node:path";
import { getHeapStatistics } from "node:v8";
import { BenchError, errorMessage } from "../util/errors.js";
import { parseJsonl, type JsonlRead } from "./jsonl.js";

/** Largest JSON file parsed (bytes): 512 MiB, V8's string limit. */
export const MAX_JSON_BYTES = 512 * 1024 * 1024;
/** A parsed JSON file takes up to this many times its size in heap (its text, then its objects). */
export const JSON_HEAP_FACTOR = 6;

/**
 * Largest JSON file this process parses: {@link MAX_JSON_BYTES}, or less when
 * the heap is smaller than JSON_HEAP_FACTOR times that — a results file that
 * would exhaust the heap is refused with a message instead of killing the
 * viewer (V8 aborts the process when the heap is full).
 */
export function jsonByteLimit(heapLimit = getHeapStatistics().heap_size_limit): number {
  return Math.min(MAX_JSON_BYTES, Math.floor(heapLimit / JSON_HEAP_FACTOR));
}
/** Of an events file, only this many last bytes are read for a summary (bytes): 8 MiB. */
export const MAX_EVENTS_TAIL_BYTES = 8 * 1024 * 1024;

/** No symbolic link as the last component; a FIFO opens at once (and is then refused) instead of blocking. */
const OPEN_FLAGS = constants.O_RDONLY | (constants.O_NOFOLLOW ?? 0) | (constants.O_NONBLOCK ?? 0);

/** A run file that exists but cannot be used. */
export class RunFileError extends BenchError {
  constructor(file: string, reason: string) {
    super("E_VIEW_RUN_FILE", `${file}: ${reason}`);
  }
}

/** `name` of `dir` opened for reading (see the module note), or null when it does not exist. */
export async function openRunFile(dir: string, name: string): Promise<{ handle: FileHandle; stats: Stats } | null> {
  let handle: FileHandle;
  try {
    handle = await open(join(dir, name), OPEN_FLAGS);
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code;
    if (code === "ENOENT" || code === "ENOTDIR") return null;
    if (code === "ELOOP") throw new RunFileError(name, "is a symbolic link; the viewer does not follow it");
    throw new RunFileError(name, `cannot be opened: ${errorMessage(err)}`);
  }
  const stats = await handle.stat();
  if (!stats.isFile()) {
    await handle.close();
    throw new RunFileError(name, "is not a regular file");
  }
  return { handle, stats };
}

/** The parsed JSON file `name` of `dir`, or null when it does not exist. */
export async function readJsonFile(dir: string, name: string): Promise<unknown> {
  const opened = await openRunFile(dir, name);
  if (!opened) return null;
  const { handle, stats } = opened;
  try {
    const limit = jsonByteLimit();
    if (stats.size > limit)
      throw new RunFileError(
        name,
        `too large to read (${stats.size} bytes; this viewer reads JSON files up to ${limit} bytes, a sixth of its ` +
          `heap: a larger heap, e.g. NODE_OPTIONS=--max-old-space-size=8192, raises it up to ${MAX_JSON_BYTES})`,
      );
    let text: string;
    try {
      text = await handle.readFile("utf8");
    } catch (err) {
      throw new RunFileError(name, `cannot be read: ${errorMessage(err)}`);
    }
    try {
      return JSON.parse(text) as unknown;
    } catch (err) {
      throw new RunFileError(name, `not readable JSON: ${errorMessage(err)}`);
    }
  } finally {
    await handle.close();
  }
}

/** Like {@link readJsonFile}, but a bad file is null (summaries show what they can). */
export async function readJsonQuiet(dir: string, name: string): Promise<unknown> {
  try {
    return await readJsonFile(dir, name);
  } catch {
    return null;
  }
}

/** The JSONL file `name` of `dir` (at most its last `maxBytes`), or null when missing. */
export async function readJsonlFile(
  dir: string,
  name: string,
  maxBytes = MAX_EVENTS_TAIL_BYTES,
): Promise<(JsonlRead & { truncatedHead: boolean; mtimeMs: number }) | null> {
  const opened = await openRunFile(dir, name);
  if (!opened) return null;
  const { handle, stats: st } = opened;
  try {
    const start = Math.max(0, st.size - maxBytes);
    const buf = Buffer.alloc(st.size - start);
    await handle.read(buf, 0, buf.length, start);
    let text = buf.toString("utf8");
    // Reading from the middle: drop the first (cut) line.
    if (start > 0) text = text.slice(text.indexOf("\n") + 1);
    return { ...parseJsonl(text), truncatedHead: start > 0, mtimeMs: st.mtimeMs };
  } finally {
    await handle.close();
  }
}

/** Like {@link readJsonlFile}, but a file that cannot be used is null. */
export async function readJsonlQuiet(
  dir: string,
  name: string,
  maxBytes = MAX_EVENTS_TAIL_BYTES,
): ReturnType<typeof readJsonlFile> {
  try {
    return await readJsonlFile(dir, name, maxBytes);
  } catch {
    return null;
  }
}

/** Whether `name` exists in `dir` (as anything: a link or a pipe counts); its modification time (ms) if so. */
export async function fileTime(dir: string, name: string): Promise<number | null> {
  try {
    return (await lstat(join(dir, name))).mtimeMs;
  } catch {
    return null;
  }
}
