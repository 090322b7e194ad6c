/**
 * The purple `openai` mode end to end, in process: the HumanEval definition
 * asks n samples of one task through the A2A participant (SDK client) of a
 * purple agent whose model is the local stand-in server. Checks what reaches
 * the model (seed per sample, sampling settings) and what comes back into the
 * row (verdicts, token usage per completion and per item; a content-less
 * reply scored as the participant's failure).
 */
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { createPurpleApp } from "../../src/purple/app.js";
import { createOpenAISolver } from "../../src/purple/solvers/openai.js";
import { createA2AParticipant } from "../../src/a2a/client/participant-client.js";
import { createHumanEvalBenchmark } from "../../src/benchmarks/humaneval/definition.js";
import { SAMPLE_PROBLEMS } from "../../src/benchmarks/humaneval/sample-dataset.js";
import { createSandbox } from "../../src/sandbox/index.js";
import type { Sandbox } from "../../src/sandbox/types.js";
import { testRunOptions } from "../support/run-options.js";
import type { ServedApp } from "../../src/a2a/server/serve.js";
import { silentLogger } from "../../src/util/logger.js";
import { serveOnLoopback } from "../a2a/helpers.js";
import { completion, reply, startStandIn, type StandIn } from "../support/openai-stand-in.js";

const problem = SAMPLE_PROBLEMS.find((p) => p.entry_point === "digit_root")!;
const good = "```python\n" + problem.prompt + problem.canonical_solution + "```";
const bad = "```python\ndef digit_root(n):\n    return -1\n```";

let api: StandIn;
let purple: ServedApp & { url: string };
let sandbox: Sandbox;
beforeAll(async () => {
  api = await startStandIn();
  const solver = createOpenAISolver({
    model: "local-model",
    env: {},
    openai: { baseUrl: api.baseUrl, temperature: 0.8, seed: 7, maxRetries: 0 },
  });
  purple = await serveOnLoopback((card) => createPurpleApp({ card, solver }));
  sandbox = await createSandbox({ backend: "local", logger: silentLogger() });
});
afterAll(async () => {
  await purple?.close();
  await api?.close();
  await sandbox?.close();
});
beforeEach(() => api.reset());

async function evaluate(n: number) {
  const options = testRunOptions({
    benchmark: "humaneval",
    run_id: "t",
    out: "/nonexistent",
    dataset: "sample",
    n,
    k: [1],
    per_task_timeout_seconds: 3,
  });
  const participant = createA2AParticipant({ url: purple.url, timeoutMs: 20_000, logger: silentLogger() });
  try {
    return await createHumanEvalBenchmark().evaluate(
      { id: problem.task_id, problem },
      {
        options,
        sandbox,
        participant,
        logger: silentLogger(),
        signal: new AbortController().signal,
        workDir: "/nonexistent",
      },
    );
  } finally {
    await participant.close();
  }
}

describe("purple openai mode through the runner", () => {
  it("n = 3: three independent requests (seeds 7, 8, 9), verdicts per sample, usage per completion and per item", async () => {
    const usage = { prompt_tokens: 50, completion_tokens: 25, total_tokens: 75 };
    api.script = [reply(good, usage), reply(bad, usage), reply(good, usage)];
    const row = await evaluate(3);
    expect(api.seen.map((s) => s.body["seed"])).toEqual([7, 8, 9]);
    expect(
      api.seen.every((s) => s.body["temperature"] === 0.8 && s.body["model"] === "local-model" && !("n" in s.body)),
    ).toBe(true);
    expect(row).toMatchObject({ n: 3, num_correct: 2 });
    const samples = row["samples"] as Array<{ status: string; usage: unknown }>;
    expect(samples.map((s) => s.status)).toEqual(["passed", "failed", "passed"]);
    expect(samples[0]?.usage).toEqual({ ...usage, requests: 1 });
    expect(row["usage"]).toEqual({ prompt_tokens: 150, completion_tokens: 75, total_tokens: 225, requests: 3 });
  });

  it("a reasoning model's content-less reply fails the sample as the participant's, with the reason", async () => {
    const spent = {
      prompt_tokens: 40,
      completion_tokens: 4096,
      total_tokens: 4136,
      completion_tokens_details: { reasoning_tokens: 4096 },
    };
    api.fallback = completion(
      { content: null, reasoning_content: "thinking..." },
      { finish_reason: "length", usage: spent },
    );
    const row = await evaluate(1);
    expect(row).toMatchObject({ passed: false, status: "failed", failure_mode: "model_no_code" });
    const sample = (row["samples"] as Array<{ executed: boolean; error: string }>)[0];
    expect(sample?.executed).toBe(false);
    // The tokens the truncated reasoning cost are recorded even though the sample failed.
    expect(row["usage"]).toEqual({
      prompt_tokens: 40,
      completion_tokens: 4096,
      total_tokens: 4136,
      reasoning_tokens: 4096,
      requests: 1,
    });
    expect(sample?.error).toMatch(
      /^participant ended the task failed: solver openai failed: the reply hit the token limit with no content after 11 characters of reasoning/,
    );
  });
});
