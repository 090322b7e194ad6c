/**
 * The run's checkpoint, kept current as items finish, with coalesced writes.
 *
 * Why: every checkpoint holds all rows so far, so one fsync'd write per
 * finished item costs O(n²) bytes over a run and, awaited by the item's lane,
 * kept the lane (and its core) idle during each write. Here at most one write
 * is in flight; rows that finish meanwhile all go into the next write, of the
 * latest rows. A row's `add()` resolves once a write holding it landed, so the
 * runner can still report `checkpoint_written` per item without waiting for it.
 * Each row's canonical JSON (the checksum input) is computed once, on `add()`.
 */
import type { Logger } from "../util/logger.js";
import { errorMessage } from "../util/errors.js";
import type { ItemResult } from "./benchmark.js";
import { CHECKPOINT_SCHEMA_VERSION, encodeRow, writeCheckpoint, type CheckpointIdentity } from "./checkpoint.js";

export interface CheckpointWriterOptions {
  path: string;
  runId: string;
  identity: CheckpointIdentity;
  /** Rows already finished (resumed from an earlier checkpoint), in their order. */
  initialRows?: readonly ItemResult[];
  logger: Logger;
  /** The write itself; default {@link writeCheckpoint} (tests inject slow or failing writes). */
  write?: typeof writeCheckpoint;
  /**
   * Least time between the starts of two writes, milliseconds (default 0);
   * `flush()` does not wait for it. Rows finishing within it share one write.
   */
  minIntervalMs?: number;
}

/** What a landed write held: the number of rows in the file. */
export interface CheckpointLanded {
  rows: number;
}

export interface CheckpointWriter {
  /**
   * Record a finished row. Resolves once a checkpoint holding it is on disk,
   * or null if the write that carried it failed (logged; the next `add()` or
   * `flush()` writes again, and every write holds every row).
   */
  add(row: ItemResult): Promise<CheckpointLanded | null>;
  /**
   * Resolve once the file holds every row added so far (starting a write if
   * one is needed). `always`: write even if nothing changed since the last
   * write — a stopped run records its checkpoint even with no new row.
   */
  flush(always?: boolean): Promise<void>;
  /** Rows added so far (initial rows first, then in completion order). */
  readonly rows: readonly ItemResult[];
}

/** Create the writer; nothing is written until the first `add()` or `flush()`. */
export function createCheckpointWriter(options: CheckpointWriterOptions): CheckpointWriter {
  const write = options.write ?? writeCheckpoint;
  const rows: ItemResult[] = [...(options.initialRows ?? [])];
  const encoded: string[] = rows.map(encodeRow);
  // Rows added since the last write started, and who waits for them.
  let dirty = false;
  let waiters: Array<(landed: CheckpointLanded | null) => void> = [];
  let inFlight: Promise<void> | null = null;
  const minIntervalMs = options.minIntervalMs ?? 0;
  let lastStartMs = -Infinity;
  let timer: NodeJS.Timeout | null = null;

  const start = (now = false): void => {
    if (inFlight || !dirty) return;
    const waitMs = lastStartMs + minIntervalMs - performance.now();
    if (!now && waitMs > 0) {
      timer ??= setTimeout(() => {
        timer = null;
        start();
      }, waitMs);
      return;
    }
    if (timer) clearTimeout(timer);
    timer = null;
    lastStartMs = performance.now();
    dirty = false;
    const batch = waiters;
    waiters = [];
    const count = rows.length;
    // Snapshot by length: rows only grow, so the first `count` are this write's rows.
    const body = {
      schema_version: CHECKPOINT_SCHEMA_VERSION,
      run_id: options.runId,
      identity: options.identity,
      updated_at_unix_seconds: Math.floor(Date.now() / 1000),
      rows: rows.slice(0, count),
    };
    inFlight = write(options.path, body, encoded.slice(0, count))
      .then(
        (): CheckpointLanded => ({ rows: count }),
        (err: unknown) => {
          options.logger.error({ err: errorMessage(err), path: options.path }, "checkpoint write failed");
          return null;
        },
      )
      .then((landed) => {
        inFlight = null;
        for (const resolve of batch) resolve(landed);
        if (landed)
          start(); // rows that finished during this write
        else dirty = true; // not retried at once (a full disk would spin): the next add() or flush() writes
      });
  };

  /** Until no write is under way (a write may start another when rows arrived meanwhile). */
  const settled = async (): Promise<void> => {
    while (inFlight) await inFlight;
  };
  return {
    rows,
    add(row) {
      rows.push(row);
      encoded.push(encodeRow(row));
      dirty = true;
      const landed = new Promise<CheckpointLanded | null>((resolve) => waiters.push(resolve));
      start();
      return landed;
    },
    async flush(always = false) {
      if (always) dirty = true;
      await settled(); // the write under way may hold fewer rows than there are
      start(true); // one write of every row not yet on disk (including a failed write's), without the interval
      await settled();
    },
  };
}
