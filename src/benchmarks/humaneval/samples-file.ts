/**
 * Completions from a file instead of a participant, in OpenAI human-eval's
 * samples format: JSONL (optionally gzipped, detected by content), one
 * `{"task_id": ..., "completion": ...}` per line; a task's lines, in file
 * order, are its completions. Other keys on a line are ignored, as
 * `evaluate_functional_correctness` ignores them.
 *
 * A run reads the file in one streaming pass that validates every line and
 * keeps, per task, only the byte ranges of its lines; a task's completions
 * are read back when that task is evaluated, so memory does not grow with
 * the number of completions. A gzipped file cannot be read at an offset, so
 * its completions are kept in memory instead.
 */
import { createReadStream } from "node:fs";
import { open, type FileHandle } from "node:fs/promises";
import { resolve } from "node:path";
import { createGunzip } from "node:zlib";
import { InputFileError } from "../../util/errors.js";
import { parseJsonlLines } from "../../util/jsonl.js";

/** task_id → completions in file order. */
export type SampleCompletions = Map<string, string[]>;

/** One line of a samples file: where its bytes are and its 1-based line number. */
export interface SampleLineRange {
  offset: number;
  length: number;
  line: number;
}

/** A validated samples file: its task ids, and each task's completions on demand. */
export interface SamplesIndex {
  /** Task ids in order of first appearance. */
  taskIds(): string[];
  /** How many completions the task has (0: none in the file). */
  count(taskId: string): number;
  /** The task's completions in file order (read from the file for a plain file). */
  read(taskId: string): Promise<string[]>;
}

/** The task id and completion of one parsed line; every problem names its line. */
function sampleOf(value: unknown, line: number, source: string): { taskId: string; completion: string } {
  if (typeof value !== "object" || value === null || Array.isArray(value))
    throw new InputFileError(source, `line ${line} is not a JSON object`);
  const { task_id: taskId, completion } = value as Record<string, unknown>;
  if (typeof taskId !== "string" || taskId === "")
    throw new InputFileError(source, `line ${line} lacks a string "task_id"`);
  if (typeof completion !== "string")
    throw new InputFileError(source, `line ${line} (${taskId}) lacks a string "completion"`);
  return { taskId, completion };
}

/** One raw line's sample, or null for a blank line. */
function sampleOfLine(raw: string, line: number, source: string): { taskId: string; completion: string } | null {
  if (raw.trim() === "") return null;
  let value: unknown;
  try {
    value = JSON.parse(raw) as unknown;
  } catch {
    throw new InputFileError(source, `line ${line} is not JSON`);
  }
  return sampleOf(value, line, source);
}

/** Parse samples JSONL text; every problem names its line. */
export function parseSamples(text: string, source: string): SampleCompletions {
  const out: SampleCompletions = new Map();
  for (const { line, value } of parseJsonlLines(text, source)) {
    const { taskId, completion } = sampleOf(value, line, source);
    const list = out.get(taskId);
    if (list) list.push(completion);
    else out.set(taskId, [completion]);
  }
  if (out.size === 0) throw new InputFileError(source, "no samples in file");
  return out;
}

/** Call `onLine` for every line of a byte stream with its byte offset (in the stream) and 1-based number. */
async function eachLine(
  stream: AsyncIterable<Buffer>,
  onLine: (bytes: Buffer, offset: number, line: number) => void,
): Promise<void> {
  let carry: Buffer = Buffer.alloc(0);
  let carryOffset = 0;
  let line = 0;
  for await (const chunk of stream) {
    let buf = carry.length > 0 ? Buffer.concat([carry, chunk]) : chunk;
    let start = 0;
    for (let nl = buf.indexOf(0x0a, start); nl !== -1; nl = buf.indexOf(0x0a, start)) {
      onLine(buf.subarray(start, nl), carryOffset + start, ++line);
      start = nl + 1;
    }
    carryOffset += start;
    buf = buf.subarray(start);
    carry = Buffer.from(buf);
  }
  onLine(carry, carryOffset, ++line);
}

/** Open the samples file for reading; a file that cannot be opened is the input's error, named. */
async function openSamples(full: string): Promise<FileHandle> {
  try {
    return await open(full, "r");
  } catch (err) {
    throw new InputFileError(full, `cannot read samples file (${(err as Error).message})`, { cause: err });
  }
}

async function isGzip(full: string): Promise<boolean> {
  const fh = await openSamples(full);
  try {
    const head = Buffer.alloc(2);
    const { bytesRead } = await fh.read(head, 0, 2, 0);
    return bytesRead === 2 && head[0] === 0x1f && head[1] === 0x8b;
  } finally {
    await fh.close();
  }
}

/** Read a plain samples file's task lines at their recorded byte ranges. */
async function readRanges(full: string, ranges: readonly SampleLineRange[], taskId: string): Promise<string[]> {
  if (ranges.length === 0) return [];
  const fh = await openSamples(full);
  try {
    const out: string[] = [];
    for (const r of ranges) {
      const buf = Buffer.alloc(r.length);
      const { bytesRead } = await fh.read(buf, 0, r.length, r.offset);
      const sample = bytesRead === r.length ? sampleOfLine(buf.toString("utf8"), r.line, full) : null;
      // The file was validated before the run; a different line now means it changed under the run.
      if (sample === null || sample.taskId !== taskId)
        throw new InputFileError(full, `line ${r.line} changed since the samples file was read`);
      out.push(sample.completion);
    }
    return out;
  } finally {
    await fh.close();
  }
}

/** Read and validate a samples file (.jsonl or gzipped) in one streaming pass; completions are read per task. */
export async function indexSamples(path: string): Promise<SamplesIndex> {
  const full = resolve(path);
  const gz = await isGzip(full);
  const ranges = new Map<string, SampleLineRange[]>();
  const held = new Map<string, string[]>();
  const raw = createReadStream(full);
  const stream = gz ? raw.pipe(createGunzip()) : raw;
  if (gz) raw.on("error", (err) => stream.destroy(err));
  try {
    await eachLine(stream, (bytes, offset, line) => {
      const sample = sampleOfLine(bytes.toString("utf8"), line, full);
      if (sample === null) return;
      if (gz) {
        const list = held.get(sample.taskId);
        if (list) list.push(sample.completion);
        else held.set(sample.taskId, [sample.completion]);
        return;
      }
      const range = { offset, length: bytes.length, line };
      const list = ranges.get(sample.taskId);
      if (list) list.push(range);
      else ranges.set(sample.taskId, [range]);
    });
  } catch (err) {
    if (err instanceof InputFileError) throw err;
    const message = (err as Error).message;
    if (gz) throw new InputFileError(full, `not a readable gzip file (${message})`, { cause: err });
    throw new InputFileError(full, `cannot read samples file (${message})`, { cause: err });
  } finally {
    raw.destroy();
  }
  if (ranges.size === 0 && held.size === 0) throw new InputFileError(full, "no samples in file");
  if (gz)
    return {
      taskIds: () => [...held.keys()],
      count: (taskId) => held.get(taskId)?.length ?? 0,
      read: (taskId) => Promise.resolve([...(held.get(taskId) ?? [])]),
    };
  return {
    taskIds: () => [...ranges.keys()],
    count: (taskId) => ranges.get(taskId)?.length ?? 0,
    read: (taskId) => readRanges(full, ranges.get(taskId) ?? [], taskId),
  };
}

/** Read and parse a whole samples file (.jsonl or gzipped) into memory. */
export async function loadSamples(path: string): Promise<SampleCompletions> {
  const index = await indexSamples(path);
  const out: SampleCompletions = new Map();
  for (const id of index.taskIds()) out.set(id, await index.read(id));
  return out;
}
