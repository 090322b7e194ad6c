/**
 * JSON Lines input files: one JSON value per non-blank line, every problem
 * reported with the file and 1-based line number; gzip recognised by its
 * magic bytes, not by the file name.
 */
import { gunzipSync } from "node:zlib";
import { InputFileError } from "./errors.js";

/** One parsed line. */
export interface JsonlLine {
  /** 1-based line number in the file. */
  line: number;
  value: unknown;
}

/** Parse JSONL text; blank lines are skipped, a line that is not JSON is an InputFileError. */
export function parseJsonlLines(text: string, source: string): JsonlLine[] {
  const out: JsonlLine[] = [];
  text.split("\n").forEach((raw, index) => {
    if (raw.trim() === "") return;
    try {
      out.push({ line: index + 1, value: JSON.parse(raw) as unknown });
    } catch {
      throw new InputFileError(source, `line ${index + 1} is not JSON`);
    }
  });
  return out;
}

/** Bytes of a file as UTF-8 text, gunzipped first when they start with the gzip magic. */
export function textOfMaybeGzip(bytes: Buffer, source: string): string {
  const isGzip = bytes[0] === 0x1f && bytes[1] === 0x8b;
  try {
    return (isGzip ? gunzipSync(bytes) : bytes).toString("utf8");
  } catch (err) {
    throw new InputFileError(source, `not a readable gzip file (${(err as Error).message})`, { cause: err });
  }
}
