/**
 * The coalescing checkpoint writer: at most one write in flight, later rows
 * merged into the next write, every row's add() resolving once a write
 * holding it landed, the file always verifiable, nothing lost on a failure.
 */
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { createCheckpointWriter } from "../../src/runner/checkpoint-writer.js";
import { readCheckpoint, writeCheckpoint, type CheckpointIdentity } from "../../src/runner/checkpoint.js";
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

let dir: string;
beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), "ckw-"));
});
afterEach(async () => {
  await rm(dir, { recursive: true, force: true });
});

/**
 * A real write that first waits for `release()`, recording how many rows each write held.
 * A release that comes before the next write has started is kept as a credit for it, so the
 * tests do not depend on how fast the previous (fsync'd) write finished.
 */
function gatedWrite() {
  const written: number[] = [];
  let inFlight = 0;
  let maxInFlight = 0;
  let credits = 0;
  const gates: Array<() => void> = [];
  const write: typeof writeCheckpoint = async (path, body, encoded) => {
    inFlight++;
    maxInFlight = Math.max(maxInFlight, inFlight);
    if (credits > 0) credits--;
    else await new Promise<void>((resolve) => gates.push(resolve));
    await writeCheckpoint(path, body, encoded);
    written.push(body.rows.length);
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
    const path = join(dir, "checkpoint.json");
    const g = gatedWrite();
    const ck = createCheckpointWriter({ path, runId: "r", identity, logger: silentLogger(), write: g.write });
    const landed = [0, 1, 2, 3, 4].map((i) => ck.add(row(i)));
    expect(g.pending()).toBe(1); // only the first write started
    g.release();
    expect(await landed[0]).toEqual({ rows: 1 });
    await new Promise((r) => setImmediate(r));
    expect(g.pending()).toBe(1); // one write for rows 2-5
    g.release();
    expect(await Promise.all(landed.slice(1))).toEqual([{ rows: 5 }, { rows: 5 }, { rows: 5 }, { rows: 5 }]);
    expect(g.written).toEqual([1, 5]);
    expect(g.maxInFlight()).toBe(1);
    const saved = await readCheckpoint(path); // the checksum over pre-encoded rows verifies
    expect(saved.rows.map((r) => r.id)).toEqual(["t/0", "t/1", "t/2", "t/3", "t/4"]);
    expect(saved.rows[4]).toEqual(row(4));
  });

  it("writes resumed rows first and checksums match a one-shot write of the same rows", async () => {
    const path = join(dir, "checkpoint.json");
    const ck = createCheckpointWriter({
      path,
      runId: "r",
      identity,
      initialRows: [row(7), row(8)],
      logger: silentLogger(),
    });
    expect(await ck.add(row(1))).toEqual({ rows: 3 });
    const saved = await readCheckpoint(path);
    expect(saved.rows.map((r) => r.id)).toEqual(["t/7", "t/8", "t/1"]);
    const other = join(dir, "other.json");
    await writeCheckpoint(other, { ...saved, rows: saved.rows }); // re-encodes every row
    expect((await readCheckpoint(other))._checksum).toBe(saved._checksum);
  });

  it("flush waits for every added row; flush(true) writes even without a new row", async () => {
    const path = join(dir, "checkpoint.json");
    const g = gatedWrite();
    const ck = createCheckpointWriter({ path, runId: "r", identity, logger: silentLogger(), write: g.write });
    void ck.add(row(0));
    void ck.add(row(1));
    let flushed = false;
    const f = ck.flush().then(() => (flushed = true));
    g.release();
    await new Promise((r) => setTimeout(r, 10));
    expect(flushed).toBe(false); // row 1 is not on disk yet
    g.release();
    await f;
    expect((await readCheckpoint(path)).rows).toHaveLength(2);
    await ck.flush(); // nothing new: no write
    expect(g.written).toEqual([1, 2]);
    const forced = ck.flush(true);
    g.release();
    await forced;
    expect(g.written).toEqual([1, 2, 2]);
  });

  it("a failed write resolves its rows with null and the next write carries them", async () => {
    const path = join(dir, "checkpoint.json");
    let fail = true;
    const write: typeof writeCheckpoint = async (p, body, encoded) => {
      if (fail) throw new Error("disk full");
      await writeCheckpoint(p, body, encoded);
    };
    const ck = createCheckpointWriter({ path, runId: "r", identity, logger: silentLogger(), write });
    expect(await ck.add(row(0))).toBeNull();
    fail = false;
    expect(await ck.add(row(1))).toEqual({ rows: 2 });
    expect((await readCheckpoint(path)).rows.map((r) => r.id)).toEqual(["t/0", "t/1"]);
  });

  it("with minIntervalMs, rows finishing within the interval wait for one write; flush does not wait", async () => {
    const path = join(dir, "checkpoint.json");
    const written: number[] = [];
    const write: typeof writeCheckpoint = async (p, body, encoded) => {
      await writeCheckpoint(p, body, encoded);
      written.push(body.rows.length);
    };
    const ck = createCheckpointWriter({
      path,
      runId: "r",
      identity,
      logger: silentLogger(),
      write,
      minIntervalMs: 60_000,
    });
    expect(await ck.add(row(0))).toEqual({ rows: 1 }); // the first write starts at once
    let landed1: unknown = "pending";
    void ck.add(row(1)).then((l) => (landed1 = l));
    void ck.add(row(2));
    await new Promise((r) => setTimeout(r, 50));
    expect(written).toEqual([1]);
    expect(landed1).toBe("pending");
    await ck.flush(); // a stop or the end of the run: written now, in one write
    expect(written).toEqual([1, 3]);
    expect(landed1).toEqual({ rows: 3 });
    expect((await readCheckpoint(path)).rows).toHaveLength(3);
  });
});
