/**
 * The model gateway end to end: a green agent whose operator set an upstream (the local stand-in) and prices
 * runs HumanEval against our purple in `agent` mode, whose own model server is another stand-in. The purple
 * answers through the URL and token each item's message carries; the rows, the aggregate and the bundle show
 * what the gateway measured beside what the purple reported. Needs `npm run build` (dist/cli.js runs the runner).
 */
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { afterEach, beforeEach, expect, test } from "vitest";
import { TaskState, type Task } from "@a2a-js/sdk";
import { createA2AClient } from "../../src/a2a/client/client.js";
import { partData } from "../../src/a2a/shared/parts.js";
import { defaultRunnerCommand } from "../../src/green/runner-command.js";
import { createPurpleApp } from "../../src/purple/app.js";
import { createAgentSolver } from "../../src/purple/solvers/agent.js";
import { validateBundle } from "../../src/bundle/validate.js";
import type { ServedApp } from "../../src/a2a/server/serve.js";
import { serveOnLoopback } from "../a2a/helpers.js";
import { requestOf, startGreen, type StartedGreen } from "../green/helpers.js";
import { reply, startStandIn, type StandIn } from "../support/openai-stand-in.js";

const USAGE = { prompt_tokens: 1000, completion_tokens: 500, total_tokens: 1500 };
/** 1000 × 1 + 500 × 2 USD per million tokens. */
const CALL_COST = 0.002;
const PRICES = JSON.stringify({ "local-model": { input_per_million_usd: 1, output_per_million_usd: 2 } });

let green: StartedGreen | undefined;
let purple: (ServedApp & { url: string }) | undefined;
let upstream: StandIn;
let purplesOwn: StandIn;

beforeEach(async () => {
  upstream = await startStandIn();
  upstream.fallback = reply("```python\ndef f():\n    return 1\n```", USAGE);
  purplesOwn = await startStandIn();
  const solver = createAgentSolver({
    model: "local-model",
    env: {},
    openai: { baseUrl: purplesOwn.baseUrl, maxRetries: 0 },
  });
  purple = await serveOnLoopback((card) => createPurpleApp({ card, solver }));
  green = await startGreen(
    defaultRunnerCommand(process.env),
    { maxConcurrent: 1 },
    {
      ...process.env,
      GREEN_MODEL_GATEWAY_UPSTREAM: upstream.baseUrl,
      GREEN_MODEL_GATEWAY_KEY: "operator-key",
      GREEN_MODEL_GATEWAY_PRICES: PRICES,
    },
  );
});
afterEach(async () => {
  await green?.close();
  await purple?.close();
  await upstream.close();
  await purplesOwn.close();
  green = purple = undefined;
});

async function assess(runId: string, extra: Record<string, unknown>) {
  const client = await createA2AClient(green!.url, "1.0", "JSONRPC");
  const config = {
    benchmark: "humaneval",
    run_id: runId,
    samples: 2,
    k: [1],
    concurrency: 1,
    participant_concurrency: 1,
    model_gateway: true,
    ...extra,
  };
  const task = (await client.sendMessage(requestOf({ participants: { agent: purple!.url }, config }))) as Task;
  const bundle = partData(task.artifacts.find((a) => a.name === "evaluation_bundle")!.parts[0]!)!;
  const results = JSON.parse(readFileSync(join(green!.resultsRoot, "a2a", runId, "results.json"), "utf8")) as {
    rows: Array<Record<string, unknown>>;
    aggregate: Record<string, unknown>;
  };
  return { task, bundle, results };
}

test("the purple's calls go through the gateway; rows, aggregate and bundle show measured usage beside its own report", async () => {
  const { task, bundle, results } = await assess("gateway-measured", {});
  expect(task.status?.state).toBe(TaskState.TASK_STATE_COMPLETED);
  expect(validateBundle(bundle)).toEqual([]);
  // Every call reached the operator's upstream with the operator's key; none the purple's own server.
  expect(purplesOwn.seen).toHaveLength(0);
  expect(upstream.seen).toHaveLength(2);
  expect(upstream.seen.every((s) => s.auth === "Bearer operator-key")).toBe(true);
  for (const row of results.rows) {
    expect(row["measured_usage"]).toEqual({
      source: "measured",
      ...USAGE,
      requests: 1,
      requests_without_usage: 0,
      refused_requests: 0,
      cost_usd: CALL_COST,
    });
    expect(row["usage_source"]).toBe("self_reported");
    expect(row["usage"]).toMatchObject(USAGE);
  }
  const bySource = {
    measured: {
      source: "measured",
      prompt_tokens: 2000,
      completion_tokens: 1000,
      total_tokens: 3000,
      requests: 2,
      cost_usd: 2 * CALL_COST,
    },
    self_reported: { total_tokens: 3000, items: 2 },
  };
  expect(results.aggregate["usage_by_source"]).toMatchObject(bySource);
  expect(bundle["metrics"]).toMatchObject({ usage_by_source: bySource });
}, 180_000);

test("past the run's cost cap the participant's calls are refused: its failure, recorded on the row, never our error", async () => {
  const { task, bundle, results } = await assess("gateway-capped", { max_cost_per_run_usd: CALL_COST / 2 });
  expect(task.status?.state).toBe(TaskState.TASK_STATE_COMPLETED);
  expect(bundle["status"]).toBe("ok");
  expect(upstream.seen).toHaveLength(1);
  const [first, second] = results.rows;
  expect(first?.["measured_usage"]).toMatchObject({ requests: 1, cost_usd: CALL_COST });
  expect(second?.["measured_usage"]).toMatchObject({ requests: 0, refused_requests: 1, cap_hit: "run", cost_usd: 0 });
  expect(second).toMatchObject({ passed: false });
  expect(String(second?.["failure_mode"])).toMatch(/^model_/);
  expect(bundle["metrics"]).toMatchObject({ usage_by_source: { measured: { cap_hit: "run", requests: 1 } } });
}, 180_000);

test("a request for a gateway the operator does not offer is rejected", async () => {
  await green!.close();
  green = await startGreen(defaultRunnerCommand(process.env), { maxConcurrent: 1, modelGateway: undefined });
  const client = await createA2AClient(green.url, "1.0", "JSONRPC");
  const task = (await client.sendMessage(
    requestOf({ participants: { agent: purple!.url }, config: { benchmark: "humaneval", model_gateway: true } }),
  )) as Task;
  expect(task.status?.state).toBe(TaskState.TASK_STATE_REJECTED);
  expect(JSON.stringify(task.status?.message)).toMatch(/offers no model gateway/);
}, 60_000);
