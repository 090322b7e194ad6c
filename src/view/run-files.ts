/**
 * Reading a run's own files as they are on disk, per request, tolerating a
 * run still being written: a missing file is null, a JSONL's unfinished last
 * line is skipped (jsonl.ts), an unreadable JSON file is reported, not thrown.
 */
import { open, readFile, stat } from "node:fs/promises";
import { join } from "node:path";
import { BenchError, errorMessage } from "../util/errors.js";
import { parseJsonl, type JsonlRead } from "./jsonl.js";

/** Largest JSON file parsed (bytes): 512 MiB, V8's string limit. */
export const MAX_JSON_BYTES = 512 * 1024 * 1024;
/** Of an events file, only this many last bytes are read for a summary (bytes): 8 MiB. */
export const MAX_EVENTS_TAIL_BYTES = 8 * 1024 * 1024;

/** A run file that exists but cannot be used. */
export class RunFileError extends BenchError {
  constructor(file: string, reason: string) {
    super("E_VIEW_RUN_FILE", `${file}: ${reason}`);
  }
}

/** The parsed JSON file `name` of `dir`, or null when it does not exist. */
export async function readJsonFile(dir: string, name: string): Promise<unknown> {
  const path = join(dir, name);
  let size: number;
  try {
    size = (await stat(path)).size;
  } catch {
    return null;
  }
  if (size > MAX_JSON_BYTES) throw new RunFileError(name, `too large to read (${size} bytes)`);
  try {
    return JSON.parse(await readFile(path, "utf8")) as unknown;
  } catch (err) {
    throw new RunFileError(name, `not readable JSON: ${errorMessage(err)}`);
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
  let handle;
  try {
    handle = await open(join(dir, name), "r");
  } catch {
    return null;
  }
  try {
    const st = await handle.stat();
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

/** Whether `name` exists in `dir` as a file; its modification time (ms) if so. */
export async function fileTime(dir: string, name: string): Promise<number | null> {
  try {
    const st = await stat(join(dir, name));
    return st.isFile() ? st.mtimeMs : null;
  } catch {
    return null;
  }
}
