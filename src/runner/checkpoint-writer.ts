/**
 * The run's checkpoint, kept current as items finish, with coalesced appends.
 *
 * Why: the checkpoint is append-only JSONL (checkpoint.ts), so a finished
 * row's line is encoded once on `add()`, appended by the next write and then
 * dropped: the writer holds only the lines not yet on disk, and a run's
 * checkpoint costs O(rows) bytes, not a rewrite of every row per write. At
 * most one write (one append + fdatasync) is in flight; rows that finish
 * meanwhile all go into the next one. A row's `add()` resolves once a write
 * holding it landed, so the runner can still report `checkpoint_written` per
 * item without waiting for it. A fresh run starts the file (header only,
 * atomically) on its first write; a resumed run appends to the file it read.
 */
import type { Logger } from "../util/logger.js";
import { errorMessage } from "../util/errors.js";
import type { ItemResult } from "./benchmark.js";
import {
  CHECKPOINT_SCHEMA_VERSION,
  appendCheckpoint,
  encodeRowLine,
  startCheckpoint,
  encodeHeader,
  type CheckpointHeader,
  type CheckpointIdentity,
  type RowLocation,
} from "./checkpoint.js";

export interface CheckpointWriterOptions {
  path: string;
  runId: string;
  identity: CheckpointIdentity;
  /**
   * Rows already in the file (resumed from it): the writer appends after them
   * and counts them. Absent: a fresh run, whose first write replaces any file at `path`.
   */
  resumedRows?: number;
  /** Bytes of the resumed file (where the writer's first line goes); required with `resumedRows`. */
  resumedBytes?: number;
  logger: Logger;
  /** The append itself; default {@link appendCheckpoint} (tests inject slow or failing writes). */
  append?: typeof appendCheckpoint;
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
   * Record a finished row. Resolves once the file holds it, or null if the
   * write that carried it failed (logged; its lines are kept and the next
   * `add()` or `flush()` appends them).
   */
  add(row: ItemResult): { landed: Promise<CheckpointLanded | null>; location: RowLocation };
  /**
   * Resolve once the file holds every row added so far (starting a write if
   * one is needed). `always`: make sure the file exists even with no row — a
   * stopped run records its checkpoint even with no new row.
   */
  flush(always?: boolean): Promise<void>;
  /** Rows in the file or on their way to it (resumed ones included). */
  readonly count: number;
  /** The line at `location` while it is not on disk yet (a failed write's), else undefined. */
  unwritten(location: RowLocation): string | undefined;
}

/** The fresh file's header, made once (its bytes decide where the first row's line goes). */
function headerOnce(options: CheckpointWriterOptions): () => CheckpointHeader {
  let header: CheckpointHeader | null = null;
  return () =>
    (header ??= {
      schema_version: CHECKPOINT_SCHEMA_VERSION,
      run_id: options.runId,
      identity: options.identity,
      created_at_unix_seconds: Math.floor(Date.now() / 1000),
    });
}

/** Appends lines to the file, first starting it (header only) when the run is fresh. */
function fileWriter(
  options: CheckpointWriterOptions,
  headerOf: () => CheckpointHeader,
): ((lines: string) => Promise<void>) & { started(): boolean } {
  const append = options.append ?? appendCheckpoint;
  let started = options.resumedRows !== undefined;
  const write = async (lines: string): Promise<void> => {
    if (!started) {
      await startCheckpoint(options.path, headerOf());
      started = true;
    }
    if (lines !== "") await append(options.path, lines);
  };
  return Object.assign(write, { started: () => started });
}

/** Create the writer; nothing is written until the first `add()` or `flush()`. */
export function createCheckpointWriter(options: CheckpointWriterOptions): CheckpointWriter {
  let count = options.resumedRows ?? 0;
  // Lines added since the last write started (with their offsets; they land in this order), and who waits for them.
  let pending: Array<{ line: string; at: number }> = [];
  const headerOf = headerOnce(options);
  const writeLines = fileWriter(options, headerOf);
  // Where the next line goes: after the resumed file's lines, or after the header a fresh run will write.
  let end = options.resumedRows !== undefined ? (options.resumedBytes ?? 0) : -1;
  let waiters: Array<(landed: CheckpointLanded | null) => void> = [];
  let inFlight: Promise<void> | null = null;
  const minIntervalMs = options.minIntervalMs ?? 0;
  let lastStartMs = -Infinity;
  let timer: NodeJS.Timeout | null = null;
  let needStart = false;

  const start = (now = false): void => {
    if (inFlight || (pending.length === 0 && !(needStart && !writeLines.started()))) return;
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
    const batch = waiters;
    const lines = pending;
    waiters = [];
    pending = [];
    const landedCount = count;
    inFlight = writeLines(lines.map((p) => p.line).join(""))
      .then(
        (): CheckpointLanded => ({ rows: landedCount }),
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
        else pending = [...lines, ...pending]; // not retried at once (a full disk would spin): the next add() or flush()
      });
  };

  /** Until no write is under way (a write may start another when rows arrived meanwhile). */
  const settled = async (): Promise<void> => {
    while (inFlight) await inFlight;
  };
  return {
    get count() {
      return count;
    },
    unwritten(location) {
      return pending.find((p) => p.at === location.offset)?.line.slice(0, -1);
    },
    add(row) {
      const line = encodeRowLine(row);
      if (end < 0) end = Buffer.byteLength(encodeHeader(headerOf()));
      const location = { offset: end, length: Buffer.byteLength(line) - 1 };
      end += location.length + 1;
      pending.push({ line, at: location.offset });
      count++;
      const landed = new Promise<CheckpointLanded | null>((resolve) => waiters.push(resolve));
      start();
      return { landed, location };
    },
    async flush(always = false) {
      if (always) needStart = true;
      await settled(); // the write under way may hold fewer rows than there are
      start(true); // one write of every line not yet on disk (including a failed write's), without the interval
      await settled();
    },
  };
}
