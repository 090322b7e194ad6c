/**
 * The coalescing checkpoint writer: at most one append in flight, later rows
 * merged into the next append, every row's add() resolving once a write
 * holding it landed, the file always verifiable, nothing lost on a failure,
 * each row appended once (never rewritten).
 */
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { mkdtemp, readFile, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { createCheckpointWriter } from "../../src/runner/checkpoint-writer.js";
import { appendCheckpoint, readCheckpoint, type CheckpointIdentity } from "../../src/runner/checkpoint.js";
import type { ItemResult } from "../../src/runner/benchmark.js";
import { silentLogger } from "../../src/util/logger.js";

const identity: CheckpointIdentity = {
  benchmark: "fake",
  dataset: "sample",
  dataset_sha256: "b".repeat(64),
  seed: 0,
  agent: null,
  samples: null,
  n: 1,
  k: [1],
  shard_index: 0,
  num_shards: 1,
};
const row = (i: number): ItemResult => ({
  id: `t/${i}`,
  status: i % 2 ? "passed" : "failed",
  passed: i % 2 === 1,
  elapsed_seconds: i / 100,
  note: `ünï ${i}`,
});

const lineCount = (lines: string): number => lines.split("\n").length - 1;

let dir: string;
beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), "ckw-"));
});
afterEach(async () => {
  await rm(dir, { recursive: true, force: true });
});

/**
 * A real append that first waits for `release()`, recording how many rows each append held.
 * A release that comes before the next write has started is kept as a credit for it, so the
 * tests do not depend on how fast the previous (fsync'd) write finished.
 */
function gatedWrite() {
  const written: number[] = [];
  let inFlight = 0;
  let maxInFlight = 0;
  let credits = 0;
  const gates: Array<() => void> = [];
  const write: typeof appendCheckpoint = async (path, lines) => {
    inFlight++;
    maxInFlight = Math.max(maxInFlight, inFlight);
    if (credits > 0) credits--;
    else await new Promise<void>((resolve) => gates.push(resolve));
    await appendCheckpoint(path, lines);
    written.push(lineCount(lines));
    inFlight--;
  };
  const release = (): void => {
    const gate = gates.shift();
    if (gate) gate();
    else credits++;
  };
  return { write, written, release, pending: () => gates.length, maxInFlight: () => maxInFlight };
}

describe("createCheckpointWriter", () => {
  it("keeps one write in flight and merges the rows finished meanwhile into the next", async () => {
    const path = join(dir, "checkpoint.jsonl");
    const g = gatedWrite();
    const ck = createCheckpointWriter({ path, runId: "r", identity, logger: silentLogger(), append: g.write });
    await ck.flush(true); // the header: the file exists before the first row
    const landed = [0, 1, 2, 3, 4].map((i) => ck.add(row(i)).landed);
    expect(g.pending()).toBe(1); // only the first write started
    g.release();
    expect(await landed[0]).toEqual({ rows: 1 });
    await new Promise((r) => setImmediate(r));
    expect(g.pending()).toBe(1); // one append for rows 2-5
    g.release();
    expect(await Promise.all(landed.slice(1))).toEqual([{ rows: 5 }, { rows: 5 }, { rows: 5 }, { rows: 5 }]);
    expect(g.written).toEqual([1, 4]); // each row appended once
    expect(g.maxInFlight()).toBe(1);
    const saved = await readCheckpoint(path); // every line's checksum verifies
    expect(saved.rows.map((r) => r.id)).toEqual(["t/0", "t/1", "t/2", "t/3", "t/4"]);
    expect(saved.rows[4]).toEqual(row(4));
  });

  it("a resumed writer appends after the rows already in the file and keeps its header", async () => {
    const path = join(dir, "checkpoint.jsonl");
    const first = createCheckpointWriter({ path, runId: "r", identity, logger: silentLogger() });
    void first.add(row(7)).landed;
    void first.add(row(8)).landed;
    await first.flush();
    const ck = createCheckpointWriter({ path, runId: "r2", identity, resumedRows: 2, logger: silentLogger() });
    expect(ck.count).toBe(2);
    expect(await ck.add(row(1)).landed).toEqual({ rows: 3 });
    const saved = await readCheckpoint(path);
    expect(saved.rows.map((r) => r.id)).toEqual(["t/7", "t/8", "t/1"]);
    expect(saved.run_id).toBe("r");
    expect((await readFile(path, "utf8")).split("\n")).toHaveLength(5); // header, 3 rows, final newline
  });

  it("a fresh writer replaces an earlier run's file on its first write", async () => {
    const path = join(dir, "checkpoint.jsonl");
    const old = createCheckpointWriter({ path, runId: "old", identity, logger: silentLogger() });
    await old.add(row(5)).landed;
    const ck = createCheckpointWriter({ path, runId: "new", identity, logger: silentLogger() });
    await ck.add(row(6)).landed;
    const saved = await readCheckpoint(path);
    expect(saved.run_id).toBe("new");
    expect(saved.rows.map((r) => r.id)).toEqual(["t/6"]);
  });

  it("flush waits for every added row; flush(true) writes even without a new row", async () => {
    const path = join(dir, "checkpoint.jsonl");
    const g = gatedWrite();
    const ck = createCheckpointWriter({ path, runId: "r", identity, logger: silentLogger(), append: g.write });
    void ck.add(row(0)).landed;
    void ck.add(row(1)).landed;
    let flushed = false;
    const f = ck.flush().then(() => (flushed = true));
    g.release();
    await new Promise((r) => setTimeout(r, 10));
    expect(flushed).toBe(false); // row 1 is not on disk yet
    g.release();
    await f;
    expect((await readCheckpoint(path)).rows).toHaveLength(2);
    await ck.flush(true); // nothing new and the file exists: no write
    expect(g.written).toEqual([1, 1]);
    const empty = join(dir, "empty.jsonl");
    await createCheckpointWriter({ path: empty, runId: "r", identity, logger: silentLogger() }).flush(true);
    const saved = await readCheckpoint(empty); // a stop before any row: the header alone
    expect(saved.rows).toEqual([]);
    expect(saved.identity).toEqual(identity);
  });

  it("a failed write resolves its rows with null and the next write carries them", async () => {
    const path = join(dir, "checkpoint.jsonl");
    let fail = true;
    const write: typeof appendCheckpoint = async (p, lines) => {
      if (fail) throw new Error("disk full");
      await appendCheckpoint(p, lines);
    };
    const ck = createCheckpointWriter({ path, runId: "r", identity, logger: silentLogger(), append: write });
    expect(await ck.add(row(0)).landed).toBeNull();
    fail = false;
    expect(await ck.add(row(1)).landed).toEqual({ rows: 2 });
    expect((await readCheckpoint(path)).rows.map((r) => r.id)).toEqual(["t/0", "t/1"]);
  });

  it("with minIntervalMs, rows finishing within the interval wait for one write; flush does not wait", async () => {
    const path = join(dir, "checkpoint.jsonl");
    const written: number[] = [];
    const write: typeof appendCheckpoint = async (p, lines) => {
      await appendCheckpoint(p, lines);
      written.push(lineCount(lines));
    };
    const ck = createCheckpointWriter({
      path,
      runId: "r",
      identity,
      logger: silentLogger(),
      append: write,
      minIntervalMs: 60_000,
    });
    expect(await ck.add(row(0)).landed).toEqual({ rows: 1 }); // the first write starts at once
    let landed1: unknown = "pending";
    void ck.add(row(1)).landed.then((l) => (landed1 = l));
    void ck.add(row(2)).landed;
    await new Promise((r) => setTimeout(r, 50));
    expect(written).toEqual([1]);
    expect(landed1).toBe("pending");
    await ck.flush(); // a stop or the end of the run: written now, in one write
    expect(written).toEqual([1, 2]);
    expect(landed1).toEqual({ rows: 3 });
    expect((await readCheckpoint(path)).rows).toHaveLength(3);
  });
});
