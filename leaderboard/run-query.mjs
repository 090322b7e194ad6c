#!/usr/bin/env node
// Run a leaderboard query the way AgentBeats does, over a directory of records:
//   node leaderboard/run-query.mjs RESULTS_DIR [QUERY_FILE]     (default query: leaderboard/queries.sql)
// DuckDB comes from the dev dependency @duckdb/node-api (prebuilt engine inside its npm package).
import { readFileSync } from "node:fs";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { DuckDBInstance } from "@duckdb/node-api";

const [dir, queryFile = join(dirname(fileURLToPath(import.meta.url)), "queries.sql")] = process.argv.slice(2);
if (!dir) {
  process.stderr.write("usage: node leaderboard/run-query.mjs RESULTS_DIR [QUERY_FILE]\n");
  process.exit(2);
}
const glob = join(resolve(dir), "*.json").replaceAll("'", "''");
const db = await DuckDBInstance.create(":memory:");
const conn = await db.connect();
try {
  await conn.run(`CREATE TABLE results AS SELECT * FROM read_json_auto('${glob}')`);
  const reader = await conn.runAndReadAll(readFileSync(queryFile, "utf8"));
  const rows = reader.getRowObjectsJson();
  process.stdout.write(reader.columnNames().join("\t") + "\n");
  for (const row of rows) process.stdout.write(reader.columnNames().map((c) => String(row[c])).join("\t") + "\n");
} finally {
  conn.closeSync();
  db.closeSync();
}
