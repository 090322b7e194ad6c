import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createHash } from "node:crypto";
import { mkdtemp, rm, writeFile } from "node:fs/promises";
import { gzipSync } from "node:zlib";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { loadHumanEval } from "../../../src/benchmarks/humaneval/dataset.js";
import { SAMPLE_PROBLEMS } from "../../../src/benchmarks/humaneval/sample-dataset.js";

const lines =
  SAMPLE_PROBLEMS.slice(0, 3)
    .map((p) => JSON.stringify(p))
    .join("\n") + "\n";
let dir: string;
beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), "he-ds-"));
  await writeFile(join(dir, "a.jsonl"), lines);
  await writeFile(join(dir, "a.jsonl.gz"), gzipSync(lines));
  await writeFile(join(dir, "bad.jsonl"), '{"task_id": "x", "prompt": "p"}\n');
  await writeFile(join(dir, "dup.jsonl"), lines + JSON.stringify(SAMPLE_PROBLEMS[0]) + "\n");
});
afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
});

describe("HumanEval datasets", () => {
  it("embeds 10-20 sample problems with the five HumanEval fields", async () => {
    const ds = await loadHumanEval("sample");
    expect(ds.problems.length).toBeGreaterThanOrEqual(10);
    expect(ds.problems.length).toBeLessThanOrEqual(20);
    for (const p of ds.problems) {
      expect(p.prompt).toContain(`def ${p.entry_point}(`);
      expect(p.test).toContain("def check(candidate)");
    }
    expect(ds.sha256).toMatch(/^[0-9a-f]{64}$/);
  });

  it("reads .jsonl and .jsonl.gz paths and hashes the file bytes", async () => {
    const plain = await loadHumanEval(join(dir, "a.jsonl"));
    const gz = await loadHumanEval(join(dir, "a.jsonl.gz"));
    expect(plain.problems).toEqual(gz.problems);
    expect(plain.problems).toHaveLength(3);
    expect(plain.sha256).toBe(createHash("sha256").update(lines).digest("hex"));
  });

  it("names the problem with a malformed or duplicated file", async () => {
    await expect(loadHumanEval(join(dir, "bad.jsonl"))).rejects.toThrow(
      /line 1 lacks string field\(s\) entry_point, canonical_solution, test/,
    );
    await expect(loadHumanEval(join(dir, "dup.jsonl"))).rejects.toThrow(/duplicate task_id A2ABench\/0/);
    await expect(loadHumanEval(join(dir, "missing.jsonl"))).rejects.toMatchObject({ code: "E_INPUT_FILE" });
  });

  it("explains where humaneval-full must be when it is absent", async () => {
    await expect(loadHumanEval("humaneval-full", { A2A_BENCH_DATASETS: join(dir, "nowhere") })).rejects.toMatchObject({
      code: "E_DATASET_MISSING",
      message: expect.stringMatching(/A2A_BENCH_DATASETS/),
    });
  });
});
