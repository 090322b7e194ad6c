/**
 * Run checkpoint, appended as items finish so that `--resume` continues where
 * a run stopped. JSON Lines: the first line is the header
 * (`schema_version`, `run_id`, `identity`, `created_at_unix_seconds`), every
 * further line one finished row (`{"_checksum": ..., "row": {...}}`), in
 * completion order. Why lines: a finished row never changes, so it is written
 * once and not held for later writes; the file grows by one line per item
 * instead of being rewritten whole.
 *
 * Integrity as smi_bench, per line: `_checksum` = first 8 hex digits of
 * sha256 over the canonical JSON (sorted keys, compact separators) of the
 * line's object without `_checksum`. A mismatch on any line means a
 * corrupted or hand-edited file: it is refused, never used. Only the last
 * line may be torn (a crash mid-append: no newline and not JSON); it is
 * dropped and the file cut back to its last whole line.
 */
import { createHash } from "node:crypto";
import { open, readFile, truncate } from "node:fs/promises";
import { writeFileAtomic } from "../util/atomic-write.js";
import { BenchError } from "../util/errors.js";
import { canonicalJson } from "./canonical-json.js";
import type { ItemResult } from "./benchmark.js";

export const CHECKPOINT_SCHEMA_VERSION = 2;
export const CHECKPOINT_FILE = "checkpoint.jsonl";

/** The settings a checkpoint is only valid for; resuming with any other value is refused. */
export interface CheckpointIdentity {
  benchmark: string;
  dataset: string;
  dataset_sha256: string;
  seed: number;
  agent: string | null;
  samples: number | null;
  n: number;
  k: number[];
  shard_index: number;
  num_shards: number;
}

/** The first line of a checkpoint. */
export interface CheckpointHeader {
  schema_version: number;
  run_id: string;
  identity: CheckpointIdentity;
  created_at_unix_seconds: number;
}

/** A checkpoint as read: its header and the rows of finished items, in completion order. */
export interface Checkpoint extends CheckpointHeader {
  rows: ItemResult[];
  /** Where each of `rows` stands in the file (its line, newline excluded). */
  locations: RowLocation[];
  /** Bytes of whole, verified lines (a torn last line starts here). */
  validBytes: number;
  /** Whether a torn last line was found (and is not counted in `validBytes`). */
  tornTail: boolean;
}

/** A row's line in the checkpoint file: byte offset and length (without its newline). */
export interface RowLocation {
  offset: number;
  length: number;
}

/** Typed failure of loading or matching a checkpoint. */
export class CheckpointError extends BenchError {
  constructor(code: "E_CHECKPOINT_CORRUPT" | "E_CHECKPOINT_MISMATCH" | "E_CHECKPOINT_MISSING", message: string) {
    super(code, message);
  }
}

const checksumOf = (canonical: string): string =>
  createHash("sha256").update(canonical, "utf8").digest("hex").slice(0, 8);

/** smi_bench checksum of a JSON object: sha256 of its canonical JSON without `_checksum`, first 8 hex. */
export function computeChecksum(value: Record<string, unknown>): string {
  const { _checksum: _ignored, ...rest } = value;
  return checksumOf(canonicalJson(rest));
}

/** The header line (with its checksum and newline). */
export function encodeHeader(header: CheckpointHeader): string {
  const canonical = canonicalJson(header);
  return `{"_checksum":"${checksumOf(canonical)}",${canonical.slice(1)}\n`;
}

/**
 * A row's line (with its checksum and newline). The row is written in its own
 * key order (results.json, written from these lines, keeps the row as the
 * benchmark made it); the checksum is over the canonical JSON, as on every line.
 */
export function encodeRowLine(row: ItemResult): string {
  const checksum = checksumOf(`{"row":${canonicalJson(row)}}`);
  return `{"_checksum":"${checksum}","row":${JSON.stringify(row)}}\n`;
}

/** Start a checkpoint at `path` (atomically replacing any earlier one) holding only its header. */
export async function startCheckpoint(path: string, header: CheckpointHeader): Promise<void> {
  await writeFileAtomic(path, encodeHeader(header));
}

/** The row of a checkpoint line (as {@link encodeRowLine} wrote it), verified; throws naming `where`. */
export function rowOfLine(text: string, path: string, where: string): ItemResult {
  let obj: Record<string, unknown>;
  try {
    obj = JSON.parse(text) as Record<string, unknown>;
  } catch {
    throw corrupt(path, `${where} is not valid JSON`);
  }
  if (computeChecksum(obj) !== obj["_checksum"]) throw corrupt(path, `${where} failed its integrity check`);
  return obj["row"] as ItemResult;
}

/**
 * Append whole lines to the checkpoint and sync them to disk. A failed append
 * is cut back off (best effort), so a retry never leaves a torn line inside the file.
 */
export async function appendCheckpoint(path: string, lines: string): Promise<void> {
  const handle = await open(path, "a");
  let size = -1;
  try {
    size = (await handle.stat()).size;
    await handle.writeFile(lines);
    await handle.datasync();
  } catch (err) {
    if (size >= 0) await handle.truncate(size).catch(() => {});
    throw err;
  } finally {
    await handle.close();
  }
}

/** Cut a checkpoint back to its whole lines (after a torn last line), so appends start on a fresh line. */
export async function dropTornTail(path: string, checkpoint: Checkpoint): Promise<void> {
  if (checkpoint.tornTail) await truncate(path, checkpoint.validBytes);
}

function corrupt(path: string, what: string): CheckpointError {
  return new CheckpointError("E_CHECKPOINT_CORRUPT", `checkpoint ${path} ${what}; refusing to resume`);
}

/** Parse and verify one line; throws naming the line. */
function verifiedLine(text: string, path: string, lineNo: number): Record<string, unknown> {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    throw corrupt(path, `line ${lineNo} is not valid JSON`);
  }
  if (typeof value !== "object" || value === null || Array.isArray(value))
    throw corrupt(path, `line ${lineNo} is not a JSON object`);
  const obj = value as Record<string, unknown>;
  const stored = obj["_checksum"];
  const actual = computeChecksum(obj);
  if (typeof stored !== "string" || stored !== actual) {
    throw corrupt(
      path,
      `line ${lineNo} failed its integrity check (_checksum ${JSON.stringify(stored ?? null)}, computed "${actual}"): corrupted or edited`,
    );
  }
  return obj;
}

/**
 * Read and verify a checkpoint; throws CheckpointError when missing, unparsable or tampered with.
 * A torn last line (no newline, not JSON) is dropped, not fatal.
 */
export async function readCheckpoint(path: string): Promise<Checkpoint> {
  let bytes: Buffer;
  try {
    bytes = await readFile(path);
  } catch {
    throw new CheckpointError("E_CHECKPOINT_MISSING", `no checkpoint to resume from at ${path}`);
  }
  let header: CheckpointHeader | null = null;
  const rows: ItemResult[] = [];
  const locations: RowLocation[] = [];
  let start = 0;
  let lineNo = 0;
  let tornTail = false;
  while (start < bytes.length) {
    const end = bytes.indexOf(0x0a, start);
    const last = end === -1;
    const text = bytes.toString("utf8", start, last ? bytes.length : end);
    lineNo++;
    if (last) {
      // A line without its newline: an append cut short. Dropped when it is not a whole JSON value.
      let whole = true;
      try {
        JSON.parse(text);
      } catch {
        whole = false;
      }
      if (!whole) {
        tornTail = true;
        break;
      }
    }
    const obj = verifiedLine(text, path, lineNo);
    if (header === null) {
      if (obj["schema_version"] !== CHECKPOINT_SCHEMA_VERSION || typeof obj["identity"] !== "object")
        throw corrupt(path, `has an unknown layout (schema_version ${String(obj["schema_version"])})`);
      const { _checksum: _c, ...rest } = obj;
      header = rest as unknown as CheckpointHeader;
    } else {
      const row = obj["row"];
      if (typeof row !== "object" || row === null || Array.isArray(row) || typeof (row as ItemResult).id !== "string")
        throw corrupt(path, `line ${lineNo} holds no row`);
      rows.push(row as ItemResult);
      locations.push({ offset: start, length: (last ? bytes.length : end) - start });
    }
    start = last ? bytes.length : end + 1;
  }
  if (header === null) throw corrupt(path, "has no header line");
  return { ...header, rows, locations, validBytes: start, tornTail };
}

/** Names of the identity fields that differ, each as `field: checkpoint X, now Y`. */
export function identityDifferences(saved: CheckpointIdentity, current: CheckpointIdentity): string[] {
  const diffs: string[] = [];
  for (const key of Object.keys(current) as Array<keyof CheckpointIdentity>) {
    const a = JSON.stringify(saved[key] ?? null);
    const b = JSON.stringify(current[key] ?? null);
    if (a !== b) diffs.push(`${key}: checkpoint ${a}, now ${b}`);
  }
  return diffs;
}

/** Throw E_CHECKPOINT_MISMATCH naming every differing setting, if any. */
export function assertSameIdentity(saved: CheckpointIdentity, current: CheckpointIdentity, path: string): void {
  const diffs = identityDifferences(saved, current);
  if (diffs.length > 0) {
    throw new CheckpointError(
      "E_CHECKPOINT_MISMATCH",
      `refusing to resume from ${path}: the run's settings differ (${diffs.join("; ")})`,
    );
  }
}
