/**
 * The proof that a sharded run is the same result: the green agent (its
 * built-in runner, dist/cli.js, so `npm run build` first) scores the embedded
 * HumanEval sample against a gold purple once in one process, then with
 * `shards: 3`, one shard SIGKILLed while an item is in flight (the purple holds
 * that item's answer until the kill). The merged bundle has the same per-item
 * verdicts and the same score as the single run; the killed shard's finished
 * row is kept (judged by its first worker), its unfinished item is judged by
 * the re-run, and every item is judged exactly once.
 */
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { afterEach, expect, test } from "vitest";
import { TaskState, type Task } from "@a2a-js/sdk";
import { createA2AClient } from "../../src/a2a/client/client.js";
import { partData } from "../../src/a2a/shared/parts.js";
import { defaultRunnerCommand } from "../../src/green/runner-command.js";
import { createPurpleApp } from "../../src/purple/app.js";
import { validateBundle } from "../../src/bundle/validate.js";
import type { ServedApp } from "../../src/a2a/server/serve.js";
import { serveOnLoopback } from "../a2a/helpers.js";
import { requestOf, startGreen, type StartedGreen } from "../green/helpers.js";
import { holdingGold, rowLines, until } from "./helpers.js";

let green: StartedGreen | undefined;
let purple: (ServedApp & { url: string }) | undefined;
let release: (() => void) | undefined;
afterEach(async () => {
  release?.();
  release = undefined;
  await green?.close();
  await purple?.close();
  green = purple = undefined;
});

interface Row {
  id: string;
  status: string;
  passed: boolean;
  failure_mode?: string;
  provenance?: { shard: number; worker: string; engine: string };
}

/** The score's keys: everything of the aggregate but what measures time. */
const scoreOf = (metrics: Record<string, unknown>): Record<string, unknown> => {
  const { efficiency: _e, median_exec_ms: _m, ...rest } = metrics;
  return rest;
};

async function assess(client: Awaited<ReturnType<typeof createA2AClient>>, config: Record<string, unknown>) {
  const task = (await client.sendMessage(requestOf({ participants: { agent: purple!.url }, config }))) as Task;
  expect(task.status?.state).toBe(TaskState.TASK_STATE_COMPLETED);
  return partData(task.artifacts.find((a) => a.name === "evaluation_bundle")!.parts[0]!)!;
}

test("3 shards, one SIGKILLed mid-item, merge into the single run's verdicts and score", async () => {
  const { solver, held } = holdingGold((r) => (release = r));
  purple = await serveOnLoopback((card) => createPurpleApp({ card, solver }));
  green = await startGreen(defaultRunnerCommand(process.env), { maxConcurrent: 1 });
  const client = await createA2AClient(green.url, "1.0");

  const single = await assess(client, { benchmark: "humaneval", run_id: "single", k: [1] });
  const singleRows = (
    JSON.parse(readFileSync(join(green.resultsRoot, "a2a", "single", "results.json"), "utf8")) as { rows: Row[] }
  ).rows;
  // Shard 1 holds positions 1, 4, 7, 10; one item at a time, so position 4 is asked once position 1 is done.
  held.id = singleRows[4]!.id;

  const workDir = join(green.resultsRoot, "a2a", "sharded");
  const shard1 = join(workDir, "shard-1");
  const config = { benchmark: "humaneval", run_id: "sharded", k: [1], shards: 3, concurrency: 1 };
  const sharded = assess(client, { ...config, participant_concurrency: 1 });
  await held.arrived;
  // Its first item's row is on disk: the kill finds one item finished, one in flight.
  await until(() => rowLines(join(shard1, "checkpoint.jsonl")) >= 1);
  expect(rowLines(join(shard1, "checkpoint.jsonl"))).toBe(1);
  const firstStart = JSON.parse(readFileSync(join(shard1, "workers.jsonl"), "utf8").split("\n")[0]!) as {
    worker: string;
  };
  process.kill(Number(firstStart.worker.split(":").pop()), "SIGKILL");
  const bundle = await sharded;

  expect(validateBundle(bundle)).toEqual([]);
  expect(bundle["status"]).toBe("ok");
  expect(scoreOf(bundle["metrics"] as Record<string, unknown>)).toEqual(
    scoreOf(single["metrics"] as Record<string, unknown>),
  );
  const results = JSON.parse(readFileSync(join(workDir, "results.json"), "utf8")) as { rows: Row[] };
  const verdicts = (rows: Row[]) =>
    rows.map(({ id, status, passed, failure_mode }) => ({ id, status, passed, failure_mode }));
  expect(verdicts(results.rows)).toEqual(verdicts(singleRows));
  // Provenance: each row's shard is its position's; the killed shard's rows span two workers.
  results.rows.forEach((row, p) => expect(row.provenance).toMatchObject({ shard: p % 3, engine: "local" }));
  const starts = readFileSync(join(shard1, "workers.jsonl"), "utf8")
    .trim()
    .split("\n")
    .map((l) => JSON.parse(l));
  expect(starts.map((s: { first_row: number }) => s.first_row)).toEqual([0, 1]);
  expect(results.rows[1]!.provenance!.worker).toBe(firstStart.worker);
  expect(results.rows[4]!.provenance!.worker).toBe(starts[1].worker);
  expect(starts[1].worker).not.toBe(firstStart.worker);
  const report = JSON.parse(readFileSync(join(workDir, "merge.json"), "utf8")) as Record<string, unknown>;
  expect(report).toMatchObject({ items: 12, num_shards: 3, judged_exactly_once: true });
}, 300_000);
