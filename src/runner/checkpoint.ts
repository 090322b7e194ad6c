/**
 * Run checkpoint, written atomically after every finished item so that
 * `--resume` continues where a run stopped. Integrity as smi_bench:
 * `_checksum` = first 8 hex digits of sha256 over the canonical JSON (sorted
 * keys, compact separators) of the checkpoint without `_checksum`. A checksum
 * mismatch means a corrupted or hand-edited file: it is refused, never used.
 */
import { createHash } from "node:crypto";
import { readFile } from "node:fs/promises";
import { writeJsonAtomic } from "../util/atomic-write.js";
import { BenchError } from "../util/errors.js";
import { CanonicalFragment, canonicalJson } from "./canonical-json.js";
import type { ItemResult } from "./benchmark.js";

export const CHECKPOINT_SCHEMA_VERSION = 1;
export const CHECKPOINT_FILE = "checkpoint.json";

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

export interface Checkpoint {
  schema_version: number;
  run_id: string;
  identity: CheckpointIdentity;
  updated_at_unix_seconds: number;
  /** Rows of finished items, in completion order. */
  rows: ItemResult[];
  _checksum?: string;
}

/** Typed failure of loading or matching a checkpoint. */
export class CheckpointError extends BenchError {
  constructor(code: "E_CHECKPOINT_CORRUPT" | "E_CHECKPOINT_MISMATCH" | "E_CHECKPOINT_MISSING", message: string) {
    super(code, message);
  }
}

/** smi_bench checksum of a JSON object: sha256 of its canonical JSON without `_checksum`, first 8 hex. */
export function computeChecksum(value: Record<string, unknown>): string {
  const { _checksum: _ignored, ...rest } = value;
  return createHash("sha256").update(canonicalJson(rest), "utf8").digest("hex").slice(0, 8);
}

/** A row's canonical JSON, as it enters the checksum (see {@link writeCheckpoint}'s `encodedRows`). */
export function encodeRow(row: ItemResult): string {
  return canonicalJson(row);
}

/**
 * Write `checkpoint` (checksum added) to `path`, atomically. `encodedRows`,
 * when given, are `encodeRow` of each of `checkpoint.rows` in the same order,
 * computed once per row by the caller: the checksum then costs one hash over
 * them, not a re-encoding of every row on every write.
 */
export async function writeCheckpoint(
  path: string,
  checkpoint: Omit<Checkpoint, "_checksum">,
  encodedRows?: readonly string[],
): Promise<void> {
  const hashed = encodedRows
    ? { ...checkpoint, rows: new CanonicalFragment(`[${encodedRows.join(",")}]`) }
    : checkpoint;
  const body: Record<string, unknown> = {
    ...checkpoint,
    _checksum: computeChecksum(hashed),
  };
  await writeJsonAtomic(path, body);
}

/** Read and verify a checkpoint; throws CheckpointError when missing, unparsable or tampered with. */
export async function readCheckpoint(path: string): Promise<Checkpoint> {
  let text: string;
  try {
    text = await readFile(path, "utf8");
  } catch {
    throw new CheckpointError("E_CHECKPOINT_MISSING", `no checkpoint to resume from at ${path}`);
  }
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    throw new CheckpointError("E_CHECKPOINT_CORRUPT", `checkpoint ${path} is not valid JSON; refusing to resume`);
  }
  if (typeof value !== "object" || value === null || Array.isArray(value)) {
    throw new CheckpointError("E_CHECKPOINT_CORRUPT", `checkpoint ${path} is not a JSON object; refusing to resume`);
  }
  const obj = value as Record<string, unknown>;
  const stored = obj["_checksum"];
  const actual = computeChecksum(obj);
  if (typeof stored !== "string" || stored !== actual) {
    throw new CheckpointError(
      "E_CHECKPOINT_CORRUPT",
      `checkpoint ${path} failed its integrity check (_checksum ${JSON.stringify(stored ?? null)}, computed "${actual}"): corrupted or edited; refusing to resume`,
    );
  }
  if (
    obj["schema_version"] !== CHECKPOINT_SCHEMA_VERSION ||
    !Array.isArray(obj["rows"]) ||
    typeof obj["identity"] !== "object"
  ) {
    throw new CheckpointError(
      "E_CHECKPOINT_CORRUPT",
      `checkpoint ${path} has an unknown layout (schema_version ${String(obj["schema_version"])})`,
    );
  }
  return obj as unknown as Checkpoint;
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
