/**
 * `a2a-bench run` in process: the benchmark is looked up once per run and the
 * config resolved once, with the schema's defaults, into the options the
 * engine records.
 */
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { PassThrough } from "node:stream";
import { afterAll, describe, expect, it, vi } from "vitest";
import { SAMPLE_PROBLEMS } from "../../src/benchmarks/humaneval/sample-dataset.js";

const lookups = vi.hoisted(() => ({ names: [] as string[] }));
vi.mock("../../src/benchmarks/index.js", async (importOriginal) => {
  const real = await importOriginal<typeof import("../../src/benchmarks/index.js")>();
  return {
    ...real,
    getBenchmark: (name: string) => {
      lookups.names.push(name);
      return real.getBenchmark(name);
    },
  };
});
const { runCommand } = await import("../../src/cli/run.js");

const dir = mkdtempSync(join(tmpdir(), "cli-run-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

function captured(): PassThrough & { text(): string } {
  const s = new PassThrough();
  let text = "";
  s.on("data", (d: Buffer) => (text += d.toString()));
  return Object.assign(s, { text: () => text });
}

describe("run (in process)", () => {
  it("looks the benchmark up once and records the config resolved once, defaults included", async () => {
    const predictions = join(dir, "gold.jsonl");
    writeFileSync(
      predictions,
      SAMPLE_PROBLEMS.map((p) => JSON.stringify({ task_id: p.task_id, completion: p.canonical_solution })).join("\n"),
    );
    const configFile = join(dir, "config.json");
    writeFileSync(configFile, JSON.stringify({ predictions, samples: 2, run_id: "from-file" }));
    const out = join(dir, "out");
    const stdout = captured();
    const stderr = captured();
    const code = await runCommand(["humaneval", "--config-file", configFile, "--out", out, "--json"], {
      stdout,
      stderr,
      env: { ...process.env, LOG_LEVEL: "silent" },
    });
    expect(code, stderr.text()).toBe(0);
    expect(lookups.names).toEqual(["humaneval"]);
    const results = JSON.parse(readFileSync(join(out, "results.json"), "utf8")) as { config: Record<string, unknown> };
    expect(results.config).toMatchObject({
      run_id: "from-file",
      per_task_timeout_seconds: 3,
      agent_timeout_seconds: 120,
      max_infrastructure_failure_share: 0.1,
      sandbox: "local",
      shard_index: 0,
      num_shards: 1,
    });
    expect(JSON.parse(stdout.text())).toMatchObject({ run_id: "from-file", status: "ok", exit_code: 0 });
  }, 60_000);

  it("an unknown benchmark is a usage error before the config file is read", async () => {
    lookups.names.length = 0;
    await expect(
      runCommand(["nope", "--config-file", join(dir, "missing.json")], {
        stdout: captured(),
        stderr: captured(),
        env: process.env,
      }),
    ).rejects.toThrow(/unknown benchmark "nope" \(known: /);
    expect(lookups.names).toEqual(["nope"]);
  });
});
