/** The openai mode against a local stand-in chat-completions server on 127.0.0.1 (never the internet). */
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { createOpenAISolver, type OpenAISolverOptions } from "../../../src/purple/solvers/openai.js";
import { DEFAULT_SYSTEM_PROMPT } from "../../../src/purple/solvers/openai-settings.js";
import type { SolverInput } from "../../../src/purple/solver.js";
import { after, completion, reply, startStandIn, status, type StandIn } from "../../support/openai-stand-in.js";

let api: StandIn;
beforeAll(async () => {
  api = await startStandIn();
});
afterAll(async () => {
  await api.close();
});
beforeEach(() => api.reset());

const env = () => ({ OPENAI_BASE_URL: api.baseUrl, OPENAI_API_KEY: "sk-test" });
const signal = new AbortController().signal;
const input = (text = "q", data?: Record<string, unknown>): SolverInput => ({ text, data, metadata: undefined });
/** Fast retries: the client honours `retry-after-ms`. */
const quick = { "retry-after-ms": "5" };
const solver = (over: Partial<OpenAISolverOptions> = {}) => createOpenAISolver({ model: "m-1", env: env(), ...over });

describe("openai solver: requests", () => {
  it("posts the prompt with system prompt and model, returns the content, usage and model facts", async () => {
    api.script = [
      reply("```python\n    return 1\n```", {
        prompt_tokens: 30,
        completion_tokens: 12,
        total_tokens: 42,
        completion_tokens_details: { reasoning_tokens: 5 },
      }),
    ];
    const out = await solver().solve(input("Complete f"), signal);
    expect(out.text).toBe("```python\n    return 1\n```");
    expect(out.usage).toEqual({
      prompt_tokens: 30,
      completion_tokens: 12,
      total_tokens: 42,
      reasoning_tokens: 5,
      requests: 1,
    });
    expect(out.metadata).toEqual({ model: "m-1", finish_reason: "stop" });
    expect(api.seen).toHaveLength(1);
    expect(api.seen[0]?.path).toBe("/v1/chat/completions");
    expect(api.seen[0]?.auth).toBe("Bearer sk-test");
    expect(api.seen[0]?.body).toEqual({
      model: "m-1",
      messages: [
        { role: "system", content: DEFAULT_SYSTEM_PROMPT },
        { role: "user", content: "Complete f" },
      ],
    });
  });

  it("sends temperature, top_p, max_tokens, seed and the system prompt as set; one completion per request (no n)", async () => {
    api.fallback = reply("ok");
    const s = solver({
      openai: { temperature: 0.8, topP: 0.95, maxTokens: 512, seed: 1234, systemPrompt: "Be terse." },
    });
    await s.solve(input("t", { sample_index: 0 }), signal);
    await s.solve(input("t", { sample_index: 3 }), signal);
    const [first, fourth] = api.seen.map((x) => x.body);
    expect(first).toMatchObject({
      temperature: 0.8,
      top_p: 0.95,
      max_tokens: 512,
      seed: 1234,
      messages: [
        { role: "system", content: "Be terse." },
        { role: "user", content: "t" },
      ],
    });
    // Sample i of a task gets seed + i: pass@k samples differ, yet a rerun replays them.
    expect(fourth?.["seed"]).toBe(1237);
    expect(first).not.toHaveProperty("n");
    expect(first).not.toHaveProperty("max_completion_tokens");
  });

  it("reasoning models: max_completion_tokens instead of max_tokens; an empty system prompt sends none", async () => {
    api.fallback = reply("ok");
    await solver({ openai: { maxCompletionTokens: 4096, systemPrompt: "" } }).solve(input("t"), signal);
    const body = api.seen[0]?.body;
    expect(body).toMatchObject({ max_completion_tokens: 4096, messages: [{ role: "user", content: "t" }] });
    expect(body).not.toHaveProperty("max_tokens");
    expect(body).not.toHaveProperty("temperature");
    expect(body).not.toHaveProperty("seed");
  });

  it("a local server needs no key", async () => {
    api.script = [reply("ok")];
    const s = createOpenAISolver({ model: "local", env: {}, openai: { baseUrl: api.baseUrl } });
    expect((await s.solve(input(), signal)).text).toBe("ok");
  });
});

describe("openai solver: content-less replies are typed failures, never crashes", () => {
  it("content null with reasoning_content, cut by the token limit: E_OPENAI_TRUNCATED at once", async () => {
    api.fallback = completion(
      { content: null, reasoning_content: "Let me think. ".repeat(20) },
      { finish_reason: "length" },
    );
    await expect(solver().solve(input(), signal)).rejects.toMatchObject({
      code: "E_OPENAI_TRUNCATED",
      message: expect.stringMatching(
        /hit the token limit with no content after 280 characters of reasoning \(raise --max-completion-tokens/,
      ),
    });
    expect(api.seen).toHaveLength(1);
  });

  it("a refusal: E_OPENAI_REFUSAL at once, with the refusal text", async () => {
    api.fallback = completion({ content: null, refusal: "I can't help with that." });
    await expect(solver().solve(input(), signal)).rejects.toMatchObject({
      code: "E_OPENAI_REFUSAL",
      message: "the model refused: I can't help with that.",
    });
    expect(api.seen).toHaveLength(1);
  });

  it("content null, finish 'stop': asked again (--empty-reply-retries), usage summed over both asks", async () => {
    api.script = [completion({ content: null, reasoning_content: "hmm" }), reply("def f(): pass")];
    const out = await solver().solve(input(), signal);
    expect(out.text).toBe("def f(): pass");
    expect(out.usage).toEqual({ prompt_tokens: 22, completion_tokens: 14, total_tokens: 36, requests: 2 });
    expect(api.seen).toHaveLength(2);
  });

  it("still empty after the extra asks (tool calls, no content): E_OPENAI_NO_CONTENT", async () => {
    api.fallback = completion(
      { content: null, tool_calls: [{ id: "c1", type: "function", function: { name: "x", arguments: "{}" } }] },
      { finish_reason: "tool_calls" },
    );
    await expect(solver({ openai: { emptyReplyRetries: 2 } }).solve(input(), signal)).rejects.toMatchObject({
      code: "E_OPENAI_NO_CONTENT",
      message: "the reply had no content (finish_reason tool_calls, 1 tool call(s) though no tools were offered)",
      // What the three asks cost is kept on the error.
      usage: { prompt_tokens: 33, completion_tokens: 21, total_tokens: 54, requests: 3 },
    });
    expect(api.seen).toHaveLength(3);
  });

  it("a 200 whose body is not a completion (null, {}, text) is a typed failure, not a crash", async () => {
    const raw =
      (body: string, type = "application/json") =>
      (res: import("node:http").ServerResponse) => {
        res.writeHead(200, { "content-type": type });
        res.end(body);
      };
    api.script = [raw("null"), raw("{}")];
    await expect(solver({ openai: { emptyReplyRetries: 1 } }).solve(input(), signal)).rejects.toMatchObject({
      code: "E_OPENAI_NO_CONTENT",
    });
    api.script = [raw("not json", "text/plain")];
    await expect(solver({ openai: { emptyReplyRetries: 0 } }).solve(input(), signal)).rejects.toMatchObject({
      code: "E_OPENAI_NO_CONTENT",
    });
  });

  it("a reply without usage still answers (usage is optional)", async () => {
    api.script = [completion({ content: "x" }, { usage: null })];
    const out = await solver().solve(input(), signal);
    expect(out.text).toBe("x");
    expect(out.usage).toBeUndefined();
  });
});

describe("openai solver: retries and timeouts (the client's own)", () => {
  it("retries a 429 then a 500, then succeeds", async () => {
    api.script = [status(429, quick), status(500, quick), reply("ok")];
    expect((await solver({ openai: { maxRetries: 2 } }).solve(input(), signal)).text).toBe("ok");
    expect(api.seen).toHaveLength(3);
  });

  it("gives up after --max-retries with E_OPENAI_HTTP and the status; a 400 is not retried", async () => {
    api.fallback = status(503, quick);
    await expect(solver({ openai: { maxRetries: 1 } }).solve(input(), signal)).rejects.toMatchObject({
      code: "E_OPENAI_HTTP",
      status: 503,
    });
    expect(api.seen).toHaveLength(2);
    api.reset();
    api.script = [status(400), reply("never")];
    await expect(solver({ openai: { maxRetries: 3 } }).solve(input(), signal)).rejects.toMatchObject({
      code: "E_OPENAI_HTTP",
      status: 400,
    });
    expect(api.seen).toHaveLength(1);
  });

  it("a slow server: E_OPENAI_TIMEOUT after --timeout-seconds per attempt", async () => {
    // The reply would come after a minute: ending well before it can only be the per-attempt timeout.
    api.fallback = after(60_000, reply("late"));
    const t0 = Date.now();
    await expect(
      solver({ openai: { timeoutSeconds: 0.3, maxRetries: 1 } }).solve(input(), signal),
    ).rejects.toMatchObject({
      code: "E_OPENAI_TIMEOUT",
      message: expect.stringMatching(/within 0.3 s \(after 1 retries\)/),
    });
    expect(api.seen).toHaveLength(2);
    expect(Date.now() - t0).toBeLessThan(30_000);
  });

  it("an unreachable server: E_OPENAI_CONNECTION", async () => {
    const s = createOpenAISolver({ model: "m", env: {}, openai: { baseUrl: "http://127.0.0.1:9/v1", maxRetries: 0 } });
    await expect(s.solve(input(), signal)).rejects.toMatchObject({ code: "E_OPENAI_CONNECTION" });
  });

  it("cancellation aborts the request in flight", async () => {
    // The reply would come after a minute; abort once the request is in flight (the server has seen it).
    api.fallback = after(60_000, reply("late"));
    const ac = new AbortController();
    const pending = solver().solve(input(), ac.signal);
    while (api.seen.length === 0) await new Promise((r) => setTimeout(r, 10));
    ac.abort();
    const t0 = Date.now();
    await expect(pending).rejects.toThrow();
    expect(Date.now() - t0).toBeLessThan(30_000);
    expect(api.seen).toHaveLength(1);
  });
});

describe("openai solver: settings", () => {
  it("needs a model, and a key for the default endpoint", () => {
    expect(() => createOpenAISolver({ env: { OPENAI_BASE_URL: api.baseUrl } })).toThrow(
      "openai mode needs --model (or OPENAI_MODEL)",
    );
    expect(() => createOpenAISolver({ model: "m", env: {} })).toThrow(
      "openai mode needs OPENAI_API_KEY for the default endpoint (or --base-url for a local server)",
    );
  });

  it("checks the env settings with messages naming the variable", () => {
    expect(() => createOpenAISolver({ model: "m", env: { ...env(), OPENAI_TIMEOUT_SECONDS: "soon" } })).toThrow(
      'OPENAI_TIMEOUT_SECONDS must be a positive number of seconds, got "soon"',
    );
    expect(() => createOpenAISolver({ model: "m", env: { ...env(), OPENAI_MAX_RETRIES: "-1" } })).toThrow(
      'OPENAI_MAX_RETRIES must be a non-negative integer, got "-1"',
    );
    expect(() => createOpenAISolver({ model: "m", env: { OPENAI_BASE_URL: "localhost:8000" } })).toThrow(
      /OPENAI_BASE_URL must be an http\(s\) URL/,
    );
  });
});
