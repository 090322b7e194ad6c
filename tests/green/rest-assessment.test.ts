/**
 * One real assessment over the HTTP+JSON (REST) binding: the green agent with
 * its built-in runner (dist/cli.js, so `npm run build` first) scores the
 * embedded HumanEval sample against a purple agent in `gold` mode, both
 * reached through the SDK's REST client transport.
 */
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { afterEach, expect, test } from "vitest";
import { TaskState, type Task } from "@a2a-js/sdk";
import { createA2AClient } from "../../src/a2a/client/client.js";
import { partData } from "../../src/a2a/shared/parts.js";
import { defaultRunnerCommand } from "../../src/green/runner-command.js";
import { createPurpleApp } from "../../src/purple/app.js";
import { createGoldSolver } from "../../src/purple/solvers/gold.js";
import { validateBundle } from "../../src/bundle/validate.js";
import type { ServedApp } from "../../src/a2a/server/serve.js";
import { serveOnLoopback } from "../a2a/helpers.js";
import { requestOf, startGreen, type StartedGreen } from "./helpers.js";

let green: StartedGreen | undefined;
let purple: ServedApp | undefined;
afterEach(async () => {
  await green?.close();
  await purple?.close();
  green = purple = undefined;
});

test("green scores the embedded HumanEval sample against a gold purple, asked through REST", async () => {
  const gold = await serveOnLoopback((card) => createPurpleApp({ card, solver: createGoldSolver() }));
  purple = gold;
  green = await startGreen(defaultRunnerCommand(process.env), { maxConcurrent: 1 });
  const client = await createA2AClient(green.url, "1.0", "HTTP+JSON");
  const body = { participants: { agent: gold.url }, config: { benchmark: "humaneval", run_id: "rest-gold", k: [1] } };
  const task = (await client.sendMessage(requestOf(body))) as Task;
  expect(task.status?.state).toBe(TaskState.TASK_STATE_COMPLETED);
  const bundle = partData(task.artifacts.find((a) => a.name === "evaluation_bundle")!.parts[0]!)!;
  expect(validateBundle(bundle)).toEqual([]);
  expect(bundle["status"]).toBe("ok");
  expect(bundle["metrics"]).toMatchObject({ accuracy: 1, total: 12, pass_at_k: { "pass@1": 1 } });
  // One resolved config: the file the runner was handed, results.json and the bundle hold the same object.
  const workDir = join(green.resultsRoot, "a2a", "rest-gold");
  const handed = JSON.parse(readFileSync(join(workDir, "config.json"), "utf8"));
  const results = JSON.parse(readFileSync(join(workDir, "results.json"), "utf8"));
  expect(handed).toMatchObject({ agent: gold.url, run_id: "rest-gold", dataset: "sample", seed: 0 });
  expect(results["config"]).toEqual(handed);
  expect(bundle["config"]).toEqual(handed);
  const got = await client.getTask({ tenant: "", id: task.id, historyLength: undefined });
  expect(got.status?.state).toBe(TaskState.TASK_STATE_COMPLETED);
}, 120_000);
