/**
 * `a2a-bench merge DIR…` over shards run by hand (dist/cli.js, so `npm run
 * build` first) against a gold purple: two shards merge into one run with every
 * item once, in dataset order, each with its provenance, and one evaluation
 * bundle valid by its schema; shards of different
 * assessments, a missing shard, an unfinished shard and an edited checkpoint
 * line are refused, each naming what is wrong.
 */
import { execFile } from "node:child_process";
import { cpSync, mkdtempSync, readFileSync, rmSync, unlinkSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { promisify } from "node:util";
import { afterAll, beforeAll, expect, test } from "vitest";
import { createPurpleApp } from "../../src/purple/app.js";
import { createGoldSolver } from "../../src/purple/solvers/gold.js";
import type { ServedApp } from "../../src/a2a/server/serve.js";
import { serveOnLoopback } from "../a2a/helpers.js";
import { validateBundle } from "../../src/bundle/validate.js";
import { sampleJsonl } from "../../src/benchmarks/humaneval/dataset.js";

const CLI = resolve(import.meta.dirname, "..", "..", "dist", "cli.js");
const run = promisify(execFile);

let purple: (ServedApp & { url: string }) | undefined;
let dir = "";
beforeAll(async () => {
  purple = await serveOnLoopback((card) => createPurpleApp({ card, solver: createGoldSolver() }));
  dir = mkdtempSync(join(tmpdir(), "merge-test-"));
});
afterAll(async () => {
  await purple?.close();
  rmSync(dir, { recursive: true, force: true });
});

/** One shard of 2 run by hand; `extra` flags change its settings. */
async function shard(name: string, index: number, extra: string[] = []): Promise<string> {
  const out = join(dir, name);
  await run(process.execPath, [
    ...[CLI, "run", "humaneval", "--agent", purple!.url, "--k", "1", "--run-id", `byhand-shard-${index}`],
    ...["--shard-index", String(index), "--num-shards", "2", "--out", out, "--json", ...extra],
  ]);
  return out;
}

/** `a2a-bench merge` with its exit code and output (a refusal is exit 1, not a throw). */
async function merge(args: string[]): Promise<{ code: number; stdout: string; stderr: string }> {
  try {
    const { stdout, stderr } = await run(process.execPath, [CLI, "merge", ...args]);
    return { code: 0, stdout, stderr };
  } catch (err) {
    const e = err as { code: number; stdout: string; stderr: string };
    return { code: e.code, stdout: e.stdout, stderr: e.stderr };
  }
}

interface Row {
  id: string;
  passed: boolean;
  provenance: { shard: number; worker: string; engine: string };
}

test("two shards run by hand merge into one run: every item once, in dataset order, with its provenance", async () => {
  const [s0, s1] = await Promise.all([shard("s0", 0), shard("s1", 1)]);
  const out = join(dir, "merged");
  const merged = await merge([s1, s0, "--out", out, "--json"]);
  expect(merged.code, merged.stderr).toBe(0);
  const line = JSON.parse(merged.stdout) as Record<string, unknown>;
  expect(line).toMatchObject({ run_id: "byhand", status: "ok", aggregate: { accuracy: 1, total: 12 } });
  const results = JSON.parse(readFileSync(join(out, "results.json"), "utf8")) as { rows: Row[] };
  expect(results.rows).toHaveLength(12);
  const byShard = [s0, s1].map(
    (s) => (JSON.parse(readFileSync(join(s, "results.json"), "utf8")) as { rows: Row[] }).rows,
  );
  // Round-robin: position p of the selection is shard p % 2's, so the merged order interleaves the shards'.
  results.rows.forEach((row, p) => {
    expect(row.id).toBe(byShard[p % 2]![Math.floor(p / 2)]!.id);
    expect(row.provenance).toMatchObject({ shard: p % 2, engine: "local" });
  });
  const report = JSON.parse(readFileSync(join(out, "merge.json"), "utf8")) as Record<string, unknown>;
  expect(report).toMatchObject({ items: 12, num_shards: 2, judged_exactly_once: true });
  // The bundle the green agent would return for the merged run, valid by the schema.
  expect(line["bundle_path"]).toBe(join(out, "evaluation_bundle.json"));
  const bundle = JSON.parse(readFileSync(join(out, "evaluation_bundle.json"), "utf8")) as Record<string, unknown>;
  expect(validateBundle(bundle)).toEqual([]);
  expect(bundle).toMatchObject({
    benchmark: "humaneval",
    run_id: "byhand",
    status: "ok",
    exit_code: 0,
    participants: { participant: purple!.url },
    metrics: { accuracy: 1, total: 12 },
    artifacts: { results_path: join(out, "results.json") },
  });

  // Refusals, each naming what is wrong.
  const other = await shard("s1-seed", 1, ["--seed", "5", "--per-task-timeout-seconds", "7"]);
  const mismatch = await merge([s0, other, "--out", join(dir, "m2")]);
  expect(mismatch.code).toBe(1);
  expect(mismatch.stderr).toContain("E_MERGE_MISMATCH");
  expect(mismatch.stderr).toContain("seed: 0 vs 5");
  expect(mismatch.stderr).toMatch(/per_task_timeout_seconds: \d+ vs 7/);

  // The same problems in other bytes (each line's keys reversed): another dataset, by its sha256 too.
  const otherData = join(dir, "other.jsonl");
  writeFileSync(
    otherData,
    sampleJsonl()
      .trim()
      .split("\n")
      .map((l) => JSON.stringify(Object.fromEntries(Object.entries(JSON.parse(l) as object).reverse())))
      .join("\n") + "\n",
  );
  const otherSet = await shard("s1-data", 1, ["--dataset", otherData]);
  const dataMismatch = await merge([s0, otherSet, "--out", join(dir, "m2b")]);
  expect(dataMismatch.code).toBe(1);
  expect(dataMismatch.stderr).toContain("E_MERGE_MISMATCH");
  expect(dataMismatch.stderr).toContain("dataset");
  expect(dataMismatch.stderr).toContain("sha256");

  const missing = await merge([s0, "--out", join(dir, "m3")]);
  expect(missing.code).toBe(1);
  expect(missing.stderr).toContain("shard(s) 1 of 2 missing");

  const twice = await merge([s0, s0, "--out", join(dir, "m4")]);
  expect(twice.stderr).toContain("shard 0 given 2 times");

  const unfinished = join(dir, "s1-unfinished");
  cpSync(s1, unfinished, { recursive: true });
  unlinkSync(join(unfinished, "results.json"));
  const notDone = await merge([s0, unfinished, "--out", join(dir, "m5")]);
  expect(notDone.code).toBe(1);
  expect(notDone.stderr).toContain("E_MERGE_UNFINISHED");
  expect(notDone.stderr).toContain("--resume");

  const edited = join(dir, "s1-edited");
  cpSync(s1, edited, { recursive: true });
  const checkpoint = join(edited, "checkpoint.jsonl");
  const lines = readFileSync(checkpoint, "utf8").split("\n");
  lines[2] = lines[2]!.replace('"passed":true', '"passed":false');
  writeFileSync(checkpoint, lines.join("\n"));
  const corrupt = await merge([s0, edited, "--out", join(dir, "m6")]);
  expect(corrupt.code).toBe(1);
  expect(corrupt.stderr).toContain("E_MERGE_CORRUPT");
  expect(corrupt.stderr).toContain("line 3 failed its integrity check");

  const usage = await merge([s0]);
  expect(usage.code).toBe(2);
}, 300_000);
