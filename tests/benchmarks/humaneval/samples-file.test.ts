/**
 * HumanEval completions from a samples file (OpenAI human-eval's format)
 * instead of a participant: the parser, and a whole CLI run with no agent.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { spawnSync } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { gzipSync } from "node:zlib";
import { indexSamples, loadSamples, parseSamples } from "../../../src/benchmarks/humaneval/samples-file.js";
import { SAMPLE_PROBLEMS } from "../../../src/benchmarks/humaneval/sample-dataset.js";
import { cliEntry } from "../../../src/util/package-root.js";

describe("parseSamples", () => {
  it("groups completions by task in file order and ignores other keys", () => {
    const text = [
      JSON.stringify({ task_id: "A/0", completion: "    return 1\n", extra: 7 }),
      "",
      JSON.stringify({ task_id: "B/1", completion: "" }),
      JSON.stringify({ task_id: "A/0", completion: "    return 2\n" }),
    ].join("\n");
    const m = parseSamples(text, "s.jsonl");
    expect([...m.entries()]).toEqual([
      ["A/0", ["    return 1\n", "    return 2\n"]],
      ["B/1", [""]],
    ]);
  });

  it("names the file and line of every problem", () => {
    expect(() => parseSamples('{"task_id": "A/0", "completion": "x"}\nnot json', "s.jsonl")).toThrow(
      /s\.jsonl: line 2 is not JSON/,
    );
    expect(() => parseSamples('{"completion": "x"}', "s.jsonl")).toThrow(/line 1 lacks a string "task_id"/);
    expect(() => parseSamples('{"task_id": "A/0", "completion": 3}', "s.jsonl")).toThrow(
      /line 1 \(A\/0\) lacks a string "completion"/,
    );
    expect(() => parseSamples("[1]", "s.jsonl")).toThrow(/line 1 is not a JSON object/);
    expect(() => parseSamples("\n\n", "s.jsonl")).toThrow(/no samples in file/);
  });
});

describe("indexSamples (one streaming pass, completions read per task)", () => {
  let dir: string;
  beforeAll(() => {
    dir = mkdtempSync(join(tmpdir(), "he-index-"));
  });
  afterAll(() => {
    rmSync(dir, { recursive: true, force: true });
  });

  // Long lines cross the stream's 64 KiB chunks; multi-byte characters must not shift the byte ranges.
  const big = "x".repeat(70_000);
  const lines = [
    JSON.stringify({ task_id: "A/0", completion: `    return "é${big}"\n`, extra: 7 }),
    "",
    JSON.stringify({ task_id: "B/1", completion: "" }),
    JSON.stringify({ task_id: "A/0", completion: "    return '→'\n" }),
  ];
  const text = lines.join("\r\n");

  it("gives the same completions as parsing the whole text, plain or gzipped", async () => {
    const plain = join(dir, "s.jsonl");
    const gz = join(dir, "s.jsonl.gz");
    writeFileSync(plain, text);
    writeFileSync(gz, gzipSync(text));
    const expected = [...parseSamples(text, "s.jsonl").entries()];
    for (const file of [plain, gz]) {
      const index = await indexSamples(file);
      expect(index.taskIds()).toEqual(["A/0", "B/1"]);
      expect(index.count("A/0")).toBe(2);
      expect(index.count("Z/9")).toBe(0);
      expect(await index.read("Z/9")).toEqual([]);
      expect([...(await loadSamples(file)).entries()]).toEqual(expected);
    }
  });

  it("reads a task's lines only when asked, and refuses a file changed since it was indexed", async () => {
    const file = join(dir, "changing.jsonl");
    writeFileSync(file, text);
    const index = await indexSamples(file);
    writeFileSync(file, text.replace('"B/1"', '"C/1"'));
    expect(await index.read("A/0")).toHaveLength(2);
    await expect(index.read("B/1")).rejects.toThrow(/line 3 changed since the samples file was read/);
  });

  it("reports every problem the whole-text parser reports, with the file and line", async () => {
    const cases: Array<[string, RegExp]> = [
      ['{"task_id": "A/0", "completion": "x"}\nnot json', /s\.jsonl: line 2 is not JSON/],
      ['{"completion": "x"}', /line 1 lacks a string "task_id"/],
      ['{"task_id": "A/0", "completion": 3}', /line 1 \(A\/0\) lacks a string "completion"/],
      ["[1]", /line 1 is not a JSON object/],
      ["\n\n", /no samples in file/],
    ];
    const file = join(dir, "s.jsonl");
    for (const [body, message] of cases) {
      writeFileSync(file, body);
      await expect(indexSamples(file)).rejects.toThrow(message);
      expect(() => parseSamples(body, file)).toThrow(message);
    }
    await expect(indexSamples(join(dir, "absent.jsonl"))).rejects.toThrow(/cannot read samples file/);
    writeFileSync(file, Buffer.concat([gzipSync("x").subarray(0, 12)]));
    await expect(indexSamples(file)).rejects.toThrow(/not a readable gzip file/);
  });
});

describe("run humaneval --predictions (no participant)", () => {
  let dir: string;
  beforeAll(() => {
    dir = mkdtempSync(join(tmpdir(), "he-samples-"));
  });
  afterAll(() => {
    rmSync(dir, { recursive: true, force: true });
  });

  const [right, wrong, twice, missing] = SAMPLE_PROBLEMS;
  const lines = [
    { task_id: right!.task_id, completion: right!.canonical_solution },
    { task_id: wrong!.task_id, completion: "    return None\n" },
    { task_id: twice!.task_id, completion: twice!.canonical_solution },
    { task_id: twice!.task_id, completion: "    raise ValueError('no')\n" },
  ];
  const run = (file: string, out: string) =>
    spawnSync(
      process.execPath,
      [cliEntry, "run", "humaneval", "--dataset", "sample", "--predictions", file, "--out", out, "--run-id", "s"],
      {
        encoding: "utf8",
        env: { ...process.env, LOG_LEVEL: "silent" },
        timeout: 60_000,
        stdio: ["ignore", "pipe", "pipe"],
      },
    );

  it("scores each task's completions from the file as written, gzipped or not", () => {
    const plain = join(dir, "all.jsonl");
    writeFileSync(plain, lines.map((l) => JSON.stringify(l)).join("\n") + "\n");
    const gz = join(dir, "all.jsonl.gz");
    writeFileSync(gz, gzipSync(readFileSync(plain)));
    for (const [file, out] of [
      [plain, join(dir, "out-plain")],
      [gz, join(dir, "out-gz")],
    ] as const) {
      const r = run(file, out);
      expect(r.status, r.stderr).toBe(0);
      const results = JSON.parse(readFileSync(join(out, "results.json"), "utf8")) as {
        rows: Array<Record<string, unknown>>;
        aggregate: { pass_at_k: Record<string, number> };
      };
      const byId = new Map(results.rows.map((row) => [row["id"], row]));
      expect(results.rows).toHaveLength(SAMPLE_PROBLEMS.length);
      expect(byId.get(right!.task_id)).toMatchObject({ status: "passed", n: 1, num_correct: 1 });
      expect(byId.get(wrong!.task_id)).toMatchObject({ status: "failed", passed: false, n: 1, num_correct: 0 });
      expect(byId.get(twice!.task_id)).toMatchObject({ passed: false, n: 2, num_correct: 1 });
      expect(byId.get(missing!.task_id)).toMatchObject({
        status: "failed",
        failure_mode: "model_no_code",
        n: 1,
        num_correct: 0,
      });
      // pass@1 = mean over the tasks of c/n: 1 + 0 + 1/2 for ours; every other task has no line (0).
      expect(results.aggregate.pass_at_k["pass@1"]).toBeCloseTo(1.5 / SAMPLE_PROBLEMS.length, 6);
    }
  });

  it("the aggregate's n is the completions per task the file holds, not --n's default of 1", () => {
    const file = join(dir, "three.jsonl");
    const three = SAMPLE_PROBLEMS.flatMap((p) =>
      [0, 1, 2].map(() => JSON.stringify({ task_id: p.task_id, completion: p.canonical_solution })),
    );
    writeFileSync(file, three.join("\n") + "\n");
    const out = join(dir, "out-three");
    const r = run(file, out);
    expect(r.status, r.stderr).toBe(0);
    const results = JSON.parse(readFileSync(join(out, "results.json"), "utf8")) as {
      rows: Array<Record<string, unknown>>;
      aggregate: Record<string, unknown>;
    };
    expect(results.aggregate).toMatchObject({ n: 3, total: 3 * SAMPLE_PROBLEMS.length, tasks: SAMPLE_PROBLEMS.length });
    for (const row of results.rows) expect(row).toMatchObject({ n: 3, num_correct: 3 });
    // One task with fewer lines: the most any task had.
    expect(JSON.parse(readFileSync(join(dir, "out-plain", "results.json"), "utf8")).aggregate.n).toBe(2);
  });

  it("a malformed samples file stops the run before any task, naming file and line", () => {
    const file = join(dir, "bad.jsonl");
    writeFileSync(file, JSON.stringify(lines[0]) + "\n{oops\n");
    const r = run(file, join(dir, "out-bad"));
    expect(r.status).toBe(1);
    expect(r.stderr).toMatch(/bad\.jsonl: line 2 is not JSON/);
  });
});
