/**
 * The model gateway attacked by a participant end to end (a green whose operator set an upstream stand-in
 * and prices, HumanEval, one item at a time): the participant's reply carries a forged `measured_usage`, a
 * `usage_source` of `measured` and a small `usage`, and its second item spends the first item's token.
 * Only the gateway's own count is measured; the finished item's token buys nothing and bills no item.
 * Needs `npm run build` (dist/cli.js runs the runner).
 */
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { afterEach, beforeEach, expect, test } from "vitest";
import { TaskState, type Task } from "@a2a-js/sdk";
import { createA2AClient } from "../../src/a2a/client/client.js";
import { defaultRunnerCommand } from "../../src/green/runner-command.js";
import { createPurpleApp } from "../../src/purple/app.js";
import type { Solver, SolverInput, SolverReply } from "../../src/purple/solver.js";
import type { ServedApp } from "../../src/a2a/server/serve.js";
import { serveOnLoopback } from "../a2a/helpers.js";
import { requestOf, startGreen, type StartedGreen } from "../green/helpers.js";
import { reply, startStandIn, type StandIn } from "../support/openai-stand-in.js";

const USAGE = { prompt_tokens: 1000, completion_tokens: 500, total_tokens: 1500 };
/** 1000 × 1 + 500 × 2 USD per million tokens. */
const CALL_COST = 0.002;
const PRICES = JSON.stringify({ "local-model": { input_per_million_usd: 1, output_per_million_usd: 2 } });

interface Grant {
  base_url: string;
  api_key: string;
}

/** Item 1: one call with its own token. Item 2: one call with item 1's token. Both replies forge their usage. */
class ForgingSolver implements Solver {
  readonly mode = "scripted";
  private first: Grant | undefined;
  readonly statuses: number[] = [];
  async solve(input: SolverInput): Promise<SolverReply> {
    const grant = input.metadata?.["model_gateway"] as Grant | undefined;
    if (!grant) throw new Error("no grant in the item's message");
    const token = this.first?.api_key ?? grant.api_key;
    this.first ??= grant;
    const res = await fetch(`${grant.base_url}/chat/completions`, {
      method: "POST",
      headers: { "content-type": "application/json", authorization: `Bearer ${token}` },
      body: JSON.stringify({ model: "local-model", messages: [{ role: "user", content: "hi" }] }),
    });
    await res.arrayBuffer();
    this.statuses.push(res.status);
    return {
      text: "```python\ndef f():\n    return 1\n```",
      usage: { prompt_tokens: 1, completion_tokens: 1, total_tokens: 2 },
      metadata: {
        measured_usage: {
          source: "measured",
          prompt_tokens: 0,
          completion_tokens: 0,
          total_tokens: 0,
          requests: 0,
          requests_without_usage: 0,
          refused_requests: 0,
          cost_usd: 0,
        },
        usage_source: "measured",
        cost_usd: 0,
      },
    };
  }
}

let green: StartedGreen | undefined;
let purple: (ServedApp & { url: string }) | undefined;
let upstream: StandIn;
let solver: ForgingSolver;

beforeEach(async () => {
  upstream = await startStandIn();
  upstream.fallback = reply("hello", USAGE);
  solver = new ForgingSolver();
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
  green = purple = undefined;
});

test("a forged measured_usage in the reply is never taken; a finished item's token is refused and bills nobody", async () => {
  const client = await createA2AClient(green!.url, "1.0", "JSONRPC");
  const runId = "gateway-forged";
  const config = {
    benchmark: "humaneval",
    run_id: runId,
    samples: 2,
    k: [1],
    concurrency: 1,
    participant_concurrency: 1,
    model_gateway: true,
  };
  const task = (await client.sendMessage(requestOf({ participants: { agent: purple!.url }, config }))) as Task;
  expect(task.status?.state).toBe(TaskState.TASK_STATE_COMPLETED);
  const results = JSON.parse(readFileSync(join(green!.resultsRoot, "a2a", runId, "results.json"), "utf8")) as {
    rows: Array<Record<string, unknown>>;
    aggregate: Record<string, unknown>;
  };
  expect(solver.statuses).toEqual([200, 401]);
  expect(upstream.seen).toHaveLength(1);
  const [first, second] = results.rows;
  expect(first?.["measured_usage"]).toEqual({
    source: "measured",
    ...USAGE,
    requests: 1,
    requests_without_usage: 0,
    refused_requests: 0,
    cost_usd: CALL_COST,
  });
  // The second item's only call carried a revoked token: refused before any account, nothing charged anywhere.
  expect(second?.["measured_usage"]).toMatchObject({ requests: 0, cost_usd: 0 });
  for (const row of results.rows) {
    expect(row["usage_source"]).toBe("self_reported");
    expect(row["usage"]).toMatchObject({ total_tokens: 2 });
  }
  expect(results.aggregate["usage_by_source"]).toMatchObject({
    measured: { source: "measured", requests: 1, cost_usd: CALL_COST, total_tokens: 1500 },
    self_reported: { total_tokens: 4, items: 2 },
  });
}, 180_000);
