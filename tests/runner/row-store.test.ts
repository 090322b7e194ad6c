/**
 * The runner holds row summaries, not rows: many completions per item (a
 * HumanEval-like row with 50 samples each) never sit in the run's row store,
 * and results.json, streamed back from the checkpoint, is byte for byte the
 * document the old path wrote whole (`JSON.stringify(document, null, 2)`).
 */
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { mkdtemp, readFile, rm, truncate, stat } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { executeRun } from "../../src/runner/run-benchmark.js";
import type { BenchmarkDefinition, ItemResult } from "../../src/runner/benchmark.js";
import type { RunOptions } from "../../src/runner/options.js";
import type { Sandbox } from "../../src/sandbox/types.js";
import { summarizeRow } from "../../src/runner/row-store.js";
import { readCheckpoint } from "../../src/runner/checkpoint.js";
import { testRunOptions } from "../support/run-options.js";
import { silentLogger } from "../../src/util/logger.js";

const N = 50;
const ITEMS = 40;

function sandbox(): Sandbox {
  return {
    backend: "local",
    isolation: "none",
    warnings: [],
    capabilities: new Set(),
    exec: () => Promise.reject(new Error("unused")),
    execMany: () => Promise.reject(new Error("unused")),
    close: () => Promise.resolve(),
  };
}

/** Rows with N samples each (1 KB of output per sample); `full` collects every row evaluate returned. */
function heavyBenchmark(full: ItemResult[], incremental: boolean): BenchmarkDefinition<{ id: string }> {
  const aggregate = (rows: readonly ItemResult[]): Record<string, unknown> => {
    let passed = 0;
    let total = 0;
    for (const r of rows)
      for (const s of r["samples"] as Array<{ passed: boolean }>) {
        total++;
        if (s.passed) passed++;
      }
    return { accuracy: passed / total, total, tasks: rows.length };
  };
  return {
    name: "heavy",
    loadItems: async () => Array.from({ length: ITEMS }, (_, i) => ({ id: `t/${i}` })),
    needsParticipant: () => false,
    async evaluate(item) {
      const i = Number(item.id.slice(2));
      // Finish out of item order, so the results file's order comes from sorting, not arrival.
      await new Promise((r) => setTimeout(r, (ITEMS - i) % 7));
      const samples = Array.from({ length: N }, (_, j) => ({
        passed: (i + j) % 3 !== 0,
        stdout_tail: `out ${i}/${j} ünï `.repeat(60),
      }));
      const row: ItemResult = {
        id: item.id,
        status: i % 4 ? "passed" : "failed",
        passed: i % 4 !== 0,
        elapsed_seconds: i / 1000,
        ...(i % 4 ? {} : { failure_mode: "model_wrong_answer", error: null }),
        n: N,
        samples,
      };
      full.push(row);
      return row;
    },
    aggregate: (rows) => aggregate(rows),
    ...(incremental
      ? {
          createAggregator: () => {
            const rows: ItemResult[] = [];
            return { add: (r) => rows.push(r), result: () => aggregate(rows) };
          },
        }
      : {}),
  };
}

let dir: string;
beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), "rowstore-"));
});
afterEach(async () => {
  await rm(dir, { recursive: true, force: true });
});

const opts = (o: Partial<RunOptions> = {}): RunOptions =>
  testRunOptions({ benchmark: "humaneval", run_id: "r1", out: dir, concurrency: 8, ...o });

describe("row store", () => {
  it("a summary keeps only the core keys, whatever the row carries", () => {
    const row = { id: "a", status: "failed", passed: false, elapsed_seconds: 1, error: "e", samples: [1, 2], n: 2 };
    expect(summarizeRow(row)).toEqual({ id: "a", status: "failed", passed: false, elapsed_seconds: 1, error: "e" });
  });

  for (const incremental of [true, false]) {
    it(`${ITEMS} items × ${N} samples: summaries held, results.json identical to the whole document (${incremental ? "incremental" : "collected"} aggregate)`, async () => {
      const full: ItemResult[] = [];
      const out = await executeRun(heavyBenchmark(full, incremental), opts(), {
        logger: silentLogger(),
        createSandbox: sandbox,
      });
      expect(out.exitCode).toBe(0);
      const results = out.results!;
      // Structural: what the run kept per row has no samples and is small, whatever n is.
      for (const row of results.rows) {
        expect(row).not.toHaveProperty("samples");
        expect(JSON.stringify(row).length).toBeLessThan(200);
      }
      // The old path: the whole document, full rows in item order, written by JSON.stringify.
      const order = (r: ItemResult): number => Number(r.id.slice(2));
      const rows = [...full].sort((a, b) => order(a) - order(b));
      const expected = JSON.stringify({ ...results, rows }, null, 2) + "\n";
      const written = await readFile(join(dir, "results.json"), "utf8");
      expect(written).toBe(expected);
      expect(results.aggregate).toMatchObject({ total: ITEMS * N, tasks: ITEMS });
      // The checkpoint holds every full row, one verified line each.
      expect((await readCheckpoint(join(dir, "checkpoint.jsonl"))).rows).toHaveLength(ITEMS);
    });
  }

  it("resume after a torn last line: the torn row is run again and results.json is the same", async () => {
    const full: ItemResult[] = [];
    await executeRun(heavyBenchmark(full, true), opts(), { logger: silentLogger(), createSandbox: sandbox });
    const before = await readFile(join(dir, "results.json"), "utf8");
    const path = join(dir, "checkpoint.jsonl");
    const size = (await stat(path)).size;
    await truncate(path, size - 100); // the last row's line cut mid-way, as a crash mid-append leaves it
    const saved = await readCheckpoint(path);
    expect(saved.tornTail).toBe(true);
    expect(saved.rows).toHaveLength(ITEMS - 1);
    const again: ItemResult[] = [];
    const out = await executeRun(heavyBenchmark(again, true), opts({ resume: true }), {
      logger: silentLogger(),
      createSandbox: sandbox,
    });
    expect(out.exitCode).toBe(0);
    expect(again).toHaveLength(1);
    // The same document but for the recorded resume flag.
    const was = JSON.parse(before) as { config: Record<string, unknown> };
    const now = JSON.parse(await readFile(join(dir, "results.json"), "utf8")) as typeof was;
    expect(now).toEqual({ ...was, config: { ...was.config, resume: true } });
    const after = await readCheckpoint(path);
    expect(after.tornTail).toBe(false);
    expect(after.rows).toHaveLength(ITEMS);
  });
});
