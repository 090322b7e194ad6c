import { describe, expect, it } from "vitest";
import type { Part } from "@a2a-js/sdk";
import { copyFileSync, mkdtempSync, readFileSync, readdirSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { DuckDBInstance } from "@duckdb/node-api";
import { collectedResults, leaderboardRecord } from "../../src/smoke/leaderboard-record.js";
import type { CollectedArtifact } from "../../src/smoke/assessment-stream.js";
import { packageRoot } from "../../src/util/package-root.js";
import { checkAgainst } from "../../src/util/schema.js";

const text = (value: string): Part => ({
  content: { $case: "text", value },
  metadata: undefined,
  filename: "",
  mediaType: "text/plain",
});
const data = (value: Record<string, unknown>): Part =>
  ({
    content: { $case: "data", value },
    metadata: undefined,
    filename: "",
    mediaType: "application/json",
  }) as unknown as Part;
const artifact = (name: string, parts: Part[]): CollectedArtifact => ({ artifactId: name, name, parts });

describe("leaderboard record", () => {
  it("collects every DataPart and every TextPart that is JSON, in artifact order, and skips prose", () => {
    const artifacts = [
      artifact("evaluation_bundle", [
        data({ run_id: "r1", metrics: { accuracy: 1 } }),
        text("humaneval run r1: exit 0"),
      ]),
      artifact("extra", [text('{"score": 0.5}')]),
      artifact("notes", [text("not json {")]),
    ];
    expect(collectedResults(artifacts)).toEqual([{ run_id: "r1", metrics: { accuracy: 1 } }, { score: 0.5 }]);
    const record = leaderboardRecord("completed", { green: "019a-green", agent: "019a-purple" }, artifacts);
    expect(record).toEqual({
      status: "completed",
      results: [{ run_id: "r1", metrics: { accuracy: 1 } }, { score: 0.5 }],
      participants: { green: "019a-green", agent: "019a-purple" },
    });
    // The quick-submit workflow's order: the gateway's {status, results}, then participants.
    expect(Object.keys(record)).toEqual(["status", "results", "participants"]);
  });

  it("refuses a record without participants or with an empty agent id", () => {
    expect(() => leaderboardRecord("completed", {}, [])).toThrow(/E_LEADERBOARD_RECORD|leaderboard record/);
    expect(() => leaderboardRecord("completed", { agent: "" }, [])).toThrow(
      /leaderboard record: record\/participants\/agent/,
    );
  });
});

const FIXTURES = join(packageRoot, "tests", "fixtures", "leaderboard-records");
const fixtureNames = readdirSync(FIXTURES).filter((f) => f.endsWith(".json"));
const fixture = (name: string): Record<string, unknown> =>
  JSON.parse(readFileSync(join(FIXTURES, name), "utf8")) as Record<string, unknown>;

describe("leaderboard record schema: the quick-submit record and the older one", () => {
  it("accepts every fixture record, of both shapes", () => {
    expect(fixtureNames.length).toBeGreaterThanOrEqual(5);
    for (const name of fixtureNames)
      expect([name, checkAgainst("leaderboard_record.schema.json", fixture(name))]).toEqual([name, []]);
    expect(fixtureNames.filter((n) => "status" in fixture(n)).length).toBeGreaterThan(0);
    expect(fixtureNames.filter((n) => !("status" in fixture(n))).length).toBeGreaterThan(0);
  });

  it("refuses keys neither shape has, an empty participants map and ids that are neither text nor whole numbers", () => {
    const base = fixture("quick-submit-gold.json");
    expect(checkAgainst("leaderboard_record.schema.json", { ...base, provenance: {} })).not.toEqual([]);
    expect(checkAgainst("leaderboard_record.schema.json", { ...base, participants: {} })).not.toEqual([]);
    expect(checkAgainst("leaderboard_record.schema.json", { ...base, participants: { agent: 1.5 } })).not.toEqual([]);
    expect(checkAgainst("leaderboard_record.schema.json", { ...base, status: 3 })).not.toEqual([]);
  });
});

/** leaderboard/queries.sql over `dir`'s records, read the way AgentBeats reads results/. */
async function runQuery(dir: string): Promise<{ columns: string[]; rows: Record<string, unknown>[] }> {
  const db = await DuckDBInstance.create(":memory:");
  const conn = await db.connect();
  try {
    await conn.run(`CREATE TABLE results AS SELECT * FROM read_json_auto('${join(dir, "*.json")}')`);
    const reader = await conn.runAndReadAll(readFileSync(join(packageRoot, "leaderboard", "queries.sql"), "utf8"));
    return { columns: reader.columnNames(), rows: reader.getRowObjectsJS() };
  } finally {
    conn.closeSync();
    db.closeSync();
  }
}

const numeric = (rows: Record<string, unknown>[], ...keys: string[]) =>
  rows.map((r) => [r["id"], ...keys.map((k) => Number(r[k]))]);

describe("leaderboard/queries.sql in DuckDB over records of both shapes", () => {
  it("ranks the agents over a mix of quick-submit and older records, ours included, partial runs counted by what they judged", async () => {
    const dir = mkdtempSync(join(tmpdir(), "a2a-lb-records-"));
    try {
      for (const name of fixtureNames) copyFileSync(join(FIXTURES, name), join(dir, name));
      // The record we write ourselves, beside the fixtures.
      const ours = leaderboardRecord("completed", { green: "019a-green", agent: "019a-ours" }, [
        {
          artifactId: "evaluation_bundle",
          name: "evaluation_bundle",
          parts: [
            data({
              benchmark: "humaneval",
              exit_code: 0,
              status: "ok",
              metrics: { accuracy: 0.75, passed: 3, total: 4, pass_at_k: { "pass@1": 0.75 } },
            }),
          ],
        },
      ]);
      writeFileSync(join(dir, "ours.json"), JSON.stringify(ours));
      const { columns, rows } = await runQuery(dir);
      expect(columns[0]).toBe("id"); // AgentBeats: the agent id comes first
      expect(columns).toEqual(["id", "Runs", "Passed", "Items", "Accuracy", "Best pass@1", "Partial runs", "Not run"]);
      expect(numeric(rows, "Runs", "Passed", "Items", "Accuracy", "Best pass@1", "Partial runs", "Not run")).toEqual([
        // full run 4/4 + partial run 2/2 judged (2 not run, not failures)
        ["019d058f-46d2-78c2-892d-7f32714ecb31", 2, 6, 6, 1, 1, 1, 2],
        ["019a-ours", 1, 3, 4, 0.75, 0.75, 0, 0],
        // numeric ids (the gateway's example scenario) come out as text
        ["567", 1, 2, 4, 0.5, 0.5, 0, 0],
        // older record; its failed-runner run (exit 3) is left out; the failed-status record has no results
        ["purple-echo-id", 1, 0, 4, 0, 0, 0, 0],
      ]);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  }, 60_000);

  it("binds over a directory of older records alone (no status column, no partial keys)", async () => {
    const dir = mkdtempSync(join(tmpdir(), "a2a-lb-older-"));
    try {
      copyFileSync(join(FIXTURES, "older-echo.json"), join(dir, "older-echo.json"));
      const { rows } = await runQuery(dir);
      expect(numeric(rows, "Runs", "Items", "Not run")).toEqual([["purple-echo-id", 1, 4, 0]]);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  }, 60_000);
});
