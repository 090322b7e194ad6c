/**
 * The leaderboard flow end to end: `smoke --start` runs two assessments on a
 * leaderboard-layout scenario (green + purple gold, green + purple echo), each
 * writes its record, and leaderboard/queries.sql runs in a real DuckDB over
 * those records the way AgentBeats reads a leaderboard repository's results/.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { copyFileSync, mkdirSync, mkdtempSync, readFileSync, readdirSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { DuckDBInstance } from "@duckdb/node-api";
import { packageRoot } from "../../src/util/package-root.js";
import { checkAgainst } from "../../src/util/schema.js";
import { freePort, runCli } from "../scenario/helpers.js";

let dir: string;

async function assess(name: string, agentId: string, mode: string): Promise<string> {
  const [g, p] = [await freePort(), await freePort()];
  const scenarioDir = join(dir, name);
  mkdirSync(scenarioDir);
  writeFileSync(
    join(scenarioDir, "scenario.toml"),
    `[green_agent]
agentbeats_id = "green-under-test"
endpoint = "http://127.0.0.1:${g}"
cmd = "a2a-bench green --host 127.0.0.1 --port ${g}"

[[participants]]
agentbeats_id = "${agentId}"
name = "agent"
endpoint = "http://127.0.0.1:${p}"
cmd = "a2a-bench purple --host 127.0.0.1 --port ${p} --mode ${mode}"

[config]
benchmark = "humaneval"
dataset = "sample"
samples = 4
`,
  );
  const out = join(dir, "out", `${name}.json`);
  const r = await runCli(["smoke", "--start", "--scenario", scenarioDir, "--out", out, "--timeout", "120"], {
    cwd: dir,
    timeoutMs: 150_000,
  });
  expect(r.output).toContain("leaderboard record: ");
  return join(dir, "out", `${name}-results.json`);
}

beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), "a2a-leaderboard-"));
});
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe("leaderboard records and query", () => {
  it("smoke writes one record per completed assessment, and the shipped query ranks the agents by them", async () => {
    const gold = await assess("gold", "purple-gold-id", "gold");
    const echo = await assess("echo", "purple-echo-id", "echo");

    const record = JSON.parse(readFileSync(gold, "utf8")) as {
      status: string;
      participants: Record<string, string>;
      results: Array<Record<string, unknown>>;
    };
    expect(checkAgainst("leaderboard_record.schema.json", record)).toEqual([]);
    // The quick-submit record: the gateway's {status, results}, then every agent's id, the green's included.
    expect(Object.keys(record)).toEqual(["status", "results", "participants"]);
    expect(record.status).toBe("completed");
    expect(record.participants).toEqual({ green: "green-under-test", agent: "purple-gold-id" });
    expect(record.results).toHaveLength(1); // the bundle's DataPart; its prose TextPart is not JSON
    expect(record.results[0]!["benchmark"]).toBe("humaneval");
    // Verbatim: nothing of the client's own (its output paths); the bundle's artifact paths are the green
    // agent's, as on AgentBeats (in the image: /app/results/a2a/<run_id>/...).
    expect(JSON.stringify(record)).not.toContain(join(dir, "out"));
    expect(record.results[0]).toEqual(
      JSON.parse(readFileSync(join(dir, "out", "gold-evaluation_bundle.json"), "utf8")),
    );

    // A leaderboard repository: results/*.json, read as AgentBeats does.
    const repo = join(dir, "repo");
    mkdirSync(join(repo, "results"), { recursive: true });
    copyFileSync(gold, join(repo, "results", "gold.json"));
    copyFileSync(echo, join(repo, "results", "echo.json"));
    expect(readdirSync(join(repo, "results"))).toHaveLength(2);

    const db = await DuckDBInstance.create(":memory:");
    const conn = await db.connect();
    try {
      await conn.run(`CREATE TABLE results AS SELECT * FROM read_json_auto('${join(repo, "results")}/*.json')`);
      const query = readFileSync(join(packageRoot, "leaderboard", "queries.sql"), "utf8");
      const reader = await conn.runAndReadAll(query);
      expect(reader.columnNames()[0]).toBe("id"); // AgentBeats: the agent id comes first
      const rows = reader.getRowObjectsJS();
      expect(
        rows.map((r) => [r["id"], Number(r["Runs"]), Number(r["Passed"]), Number(r["Items"]), r["Accuracy"]]),
      ).toEqual([
        ["purple-gold-id", 1, 4, 4, 1],
        ["purple-echo-id", 1, 0, 4, 0],
      ]);
      expect(rows.map((r) => Number(r["Best pass@1"]))).toEqual([1, 0]);
    } finally {
      conn.closeSync();
      db.closeSync();
    }
  }, 320_000);
});
