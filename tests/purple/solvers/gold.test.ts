import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { mkdtemp, rm, writeFile } from "node:fs/promises";
import { gzipSync } from "node:zlib";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { createGoldSolver, goldBenchmarks } from "../../../src/purple/solvers/gold.js";
import { createSolver, solverModes } from "../../../src/purple/solvers/index.js";
import { SAMPLE_PROBLEMS } from "../../../src/benchmarks/humaneval/sample-dataset.js";

const signal = new AbortController().signal;
const custom = {
  task_id: "Custom/0",
  prompt: "def one():\n",
  entry_point: "one",
  canonical_solution: "    return 1\n",
  test: "def check(c):\n    assert c() == 1\n",
};

let dir: string;
beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), "gold-"));
  await writeFile(join(dir, "custom.jsonl.gz"), gzipSync(JSON.stringify(custom) + "\n"));
});
afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
});

describe("gold solver", () => {
  it("is registered in the solver table", async () => {
    expect(solverModes()).toEqual(expect.arrayContaining(["echo", "gold", "openai"]));
    expect((await createSolver("gold")).mode).toBe("gold");
  });

  it("answers a sample task with its canonical solution in a python fence", async () => {
    const p = SAMPLE_PROBLEMS[3];
    const reply = await createGoldSolver().solve(
      { text: "...", data: { benchmark: "humaneval", task_id: p?.task_id, dataset: "sample" }, metadata: undefined },
      signal,
    );
    expect(reply.text).toBe("```python\n" + p?.canonical_solution + "```\n");
  });

  it("reads the dataset named by the request (a .jsonl.gz path), or metadata when there is no DataPart", async () => {
    const reply = await createGoldSolver().solve(
      {
        text: "",
        data: undefined,
        metadata: { benchmark: "humaneval", task_id: "Custom/0", dataset: join(dir, "custom.jsonl.gz") },
      },
      signal,
    );
    expect(reply.text).toContain("return 1");
  });

  it("falls back to the purple CLI's --dataset", async () => {
    const solver = createGoldSolver({ datasets: [join(dir, "custom.jsonl.gz")] });
    const reply = await solver.solve(
      { text: "", data: { benchmark: "humaneval", task_id: "Custom/0" }, metadata: undefined },
      signal,
    );
    expect(reply.text).toContain("return 1");
  });

  it("fails clearly for an unknown task or benchmark", async () => {
    const solver = createGoldSolver();
    await expect(
      solver.solve({ text: "", data: { benchmark: "humaneval", task_id: "Nope/1" }, metadata: undefined }, signal),
    ).rejects.toThrow(/no reference solution for Nope\/1/);
    await expect(solver.solve({ text: "", data: { benchmark: "chess" }, metadata: undefined }, signal)).rejects.toThrow(
      /no gold answers for benchmark "chess" \(known: humaneval/,
    );
    expect(goldBenchmarks()).toEqual(expect.arrayContaining(["humaneval", "swebench"]));
    expect(goldBenchmarks()).not.toContain("chess");
  });
});
