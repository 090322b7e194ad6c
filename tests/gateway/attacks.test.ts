/**
 * The model gateway attacked as a participant would: calls it should not get
 * for free, costs it should not be able to hide or move, secrets it should not
 * see, a gateway it should not be able to break. Each test is a defence that
 * holds.
 */
import type { ServerResponse } from "node:http";
import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import { startAssessmentGateway, type AssessmentGateway } from "../../src/gateway/assessment-gateway.js";
import type { GatewaySettings } from "../../src/gateway/settings.js";
import { silentLogger } from "../../src/util/logger.js";
import { completion, reply, startStandIn, type StandIn, type Step } from "../support/openai-stand-in.js";

const PRICES = {
  "cheap-model": { input_per_million_usd: 1, output_per_million_usd: 2 },
  "dear-model": { input_per_million_usd: 1000, output_per_million_usd: 2000 },
};
const KEY = "operator-secret-key-0123456789";
const USAGE = { prompt_tokens: 1000, completion_tokens: 500, total_tokens: 1500 };

function settings(upstream: string): GatewaySettings {
  return {
    upstream,
    upstreamKey: KEY,
    prices: PRICES,
    host: "127.0.0.1",
    publicHost: "127.0.0.1",
    upstreamTimeoutMs: 60_000,
  };
}

async function call(
  url: string,
  token: string | undefined,
  body: unknown,
  headers: Record<string, string> = {},
): Promise<{ status: number; text: string; headers: Headers }> {
  const res = await fetch(url, {
    method: "POST",
    headers: {
      "content-type": "application/json",
      ...(token ? { authorization: `Bearer ${token}` } : {}),
      ...headers,
    },
    body: typeof body === "string" ? body : JSON.stringify(body),
  });
  return { status: res.status, text: await res.text(), headers: res.headers };
}

const chat = (model = "cheap-model", extra: Record<string, unknown> = {}) => ({
  model,
  messages: [{ role: "user", content: "hi" }],
  ...extra,
});

/**
 * An upstream that reads `stream` the way a lax validator does (pydantic's
 * default mode, as OpenAI-compatible servers built on it use): "true", 1,
 * "yes", "on" all mean true. A streamed answer is server-sent events with no
 * `usage` unless `stream_options.include_usage` is asked for.
 */
const laxStreaming: Step = (res, req) => {
  const s = req.body["stream"];
  const streams = s === true || s === 1 || (typeof s === "string" && ["true", "1", "yes", "on"].includes(s));
  if (!streams) return reply("whole", USAGE)(res, req);
  res.writeHead(200, { "content-type": "text/event-stream" });
  res.write(`data: ${JSON.stringify({ choices: [{ index: 0, delta: { content: "free " } }] })}\n\n`);
  res.write(`data: ${JSON.stringify({ choices: [{ index: 0, delta: { content: "tokens" } }] })}\n\n`);
  res.end("data: [DONE]\n\n");
};

/**
 * An upstream that routes like a multi-provider router: a `models` list is a
 * fallback chain, and the answer names the model that answered (here the
 * list's first, as when `model` is unavailable).
 */
const routing: Step = (res, req) => {
  const models = req.body["models"];
  const used = Array.isArray(models) && typeof models[0] === "string" ? models[0] : (req.body.model ?? "unknown");
  completion({ content: `from ${used}` }, { usage: USAGE })(res, { ...req, body: { ...req.body, model: used } });
};

describe("model gateway under attack", () => {
  let upstream: StandIn;
  const gateways: AssessmentGateway[] = [];
  const open = async (caps = {}) => {
    const g = await startAssessmentGateway(settings(upstream.baseUrl), caps, silentLogger());
    gateways.push(g);
    return g;
  };

  beforeEach(async () => {
    upstream = await startStandIn();
    upstream.fallback = reply("hello", USAGE);
  });
  afterEach(async () => {
    await Promise.all(gateways.splice(0).map((g) => g.close()));
    await upstream.close();
  });

  it("a finished item's token buys nothing, even sent on the next item's URL and with the next item open", async () => {
    const g = await open();
    const first = g.openItem("item-1");
    g.closeItem(first.account);
    const second = g.openItem("item-2");
    const r = await call(`${second.grant.base_url}/chat/completions`, first.grant.api_key, chat());
    expect(r.status).toBe(401);
    expect(upstream.seen).toHaveLength(0);
    expect(g.closeItem(second.account).requests).toBe(0);
  });

  it("the token is read from Authorization only: not from a query, a body field or another header", async () => {
    const g = await open();
    const { grant } = g.openItem("item-1");
    const tries = [
      call(`${grant.base_url}/chat/completions?api_key=${grant.api_key}`, undefined, chat()),
      call(`${grant.base_url}/chat/completions`, undefined, chat("cheap-model", { api_key: grant.api_key })),
      call(`${grant.base_url}/chat/completions`, undefined, chat(), { "x-api-key": grant.api_key }),
      call(`${grant.base_url}/chat/completions`, undefined, chat(), { "api-key": grant.api_key }),
    ];
    for (const r of await Promise.all(tries)) expect(r.status).toBe(401);
    expect(upstream.seen).toHaveLength(0);
  });

  it("the operator's key reaches the upstream only, never the participant: not in refusals nor in a failed call's error", async () => {
    const g = await open({ perItemUsd: 0.000001 });
    const { grant } = g.openItem("item-1");
    const answers = [
      await call(`${grant.base_url}/chat/completions`, "wrong", chat()),
      await call(`${grant.base_url}/chat/completions`, grant.api_key, "{not json"),
      await call(`${grant.base_url}/chat/completions`, grant.api_key, chat("no-such-model")),
      await call(`${grant.base_url}/chat/completions`, grant.api_key, chat("cheap-model", { stream: true })),
      await call(`${grant.base_url}/chat/completions`, grant.api_key, chat()),
      await call(`${grant.base_url}/chat/completions`, grant.api_key, chat()), // over the cap now
    ];
    expect(answers.map((a) => a.status)).toEqual([401, 400, 400, 400, 200, 402]);
    // The upstream gone: the gateway's 502 must not carry the key or the upstream's request headers either.
    await upstream.close();
    const g2 = await open();
    const second = g2.openItem("item-2");
    answers.push(await call(`${second.grant.base_url}/chat/completions`, second.grant.api_key, chat()));
    expect(answers.at(-1)?.status).toBe(502);
    for (const a of answers) {
      expect(a.text).not.toContain(KEY);
      expect([...a.headers.values()].join("\n")).not.toContain(KEY);
    }
    upstream = await startStandIn(); // afterEach closes it
  });

  it("the participant's own Authorization and headers are not forwarded; the upstream sees the operator's key alone", async () => {
    const g = await open();
    const { grant } = g.openItem("item-1");
    const r = await call(`${grant.base_url}/chat/completions`, grant.api_key, chat(), {
      "x-forwarded-for": "10.0.0.1",
      "openai-organization": "attacker-org",
    });
    expect(r.status).toBe(200);
    expect(upstream.seen).toHaveLength(1);
    expect(upstream.seen[0]?.auth).toBe(`Bearer ${KEY}`);
  });

  it("a path outside the two forwarded endpoints is not forwarded (no traversal to other upstream endpoints)", async () => {
    const g = await open();
    const { grant } = g.openItem("item-1");
    for (const p of [
      "/chat/completions/../../files",
      "/embeddings",
      "/chat/completions/",
      "//chat/completions",
      "/chat%2Fcompletions",
    ]) {
      const r = await call(`${grant.base_url}${p}`, grant.api_key, chat());
      expect(r.status, p).not.toBe(200);
    }
    expect(upstream.seen.map((s) => s.path)).toEqual([]);
  });

  it("a malformed or hostile body never breaks the gateway: the next call of the item is served", async () => {
    const g = await open();
    const { account, grant } = g.openItem("item-1");
    const url = `${grant.base_url}/chat/completions`;
    const deep = "[".repeat(100_000) + "]".repeat(100_000);
    const bad = await Promise.all([
      call(url, grant.api_key, deep),
      call(url, grant.api_key, "null"),
      call(url, grant.api_key, '"a string"'),
      call(url, grant.api_key, chat("__proto__")),
      call(url, grant.api_key, chat("constructor")),
      call(url, grant.api_key, '{"model":"cheap-model","__proto__":{"stream":true}}'),
    ]);
    expect(bad.slice(0, 5).map((r) => r.status)).toEqual([400, 400, 400, 400, 400]);
    // Nested deeper than a stack: refused or failed as a call, never a crash of the gateway.
    const nested = await call(
      url,
      grant.api_key,
      `{"model":"cheap-model","x":${"[".repeat(1_000_000)}${"]".repeat(1_000_000)}}`,
    );
    expect(nested.status).toBeGreaterThanOrEqual(400);
    const ok = await call(url, grant.api_key, chat());
    expect(ok.status).toBe(200);
    expect(g.closeItem(account).prompt_tokens).toBeGreaterThanOrEqual(1000);
  });

  it("self-reported usage fields in the call's body are not counted: only the upstream's answer is", async () => {
    const g = await open();
    const { account, grant } = g.openItem("item-1");
    upstream.fallback = reply("hello", USAGE);
    await call(`${grant.base_url}/chat/completions`, grant.api_key, {
      ...chat(),
      usage: { prompt_tokens: 0, completion_tokens: 0, total_tokens: 0 },
    });
    const m = g.closeItem(account);
    expect(m).toMatchObject({ source: "measured", prompt_tokens: 1000, completion_tokens: 500, requests: 1 });
    expect(m.cost_usd).toBeGreaterThan(0);
  });

  it("a call left in flight past its item's end is charged to the run, whose cap then refuses the next item", async () => {
    const held: Array<() => void> = [];
    upstream.fallback = (res: ServerResponse, req) => held.push(() => reply("hello", USAGE)(res, req));
    const g = await open({ perRunUsd: 0.002 });
    const first = g.openItem("item-1");
    const pending = call(`${first.grant.base_url}/chat/completions`, first.grant.api_key, chat());
    await vi.waitFor(() => expect(held).toHaveLength(1), { timeout: 60_000, interval: 20 });
    // The item ends with its call still out: nothing charged to it yet.
    expect(g.closeItem(first.account).cost_usd).toBe(0);
    held.splice(0)[0]!();
    expect((await pending).status).toBe(200);
    expect(g.runTotals()).toMatchObject({ requests: 1, cost_usd: 0.002 });
    const second = g.openItem("item-2");
    const r = await call(`${second.grant.base_url}/chat/completions`, second.grant.api_key, chat());
    expect(r.status).toBe(402);
    expect(g.closeItem(second.account)).toMatchObject({ requests: 0, refused_requests: 1, cap_hit: "run" });
  });

  it('a stream asked for in any spelling ("true", 1, "yes", null) or through stream_options is refused with 400, never forwarded', async () => {
    upstream.fallback = laxStreaming;
    const g = await open({ perItemUsd: 0.000001 });
    const { account, grant } = g.openItem("item-1");
    const url = `${grant.base_url}/chat/completions`;
    const answers = [];
    for (const stream of ["true", 1, "yes", "on", "false", 0, null, {}, [true]])
      answers.push(await call(url, grant.api_key, chat("cheap-model", { stream })));
    answers.push(await call(url, grant.api_key, chat("cheap-model", { stream_options: { include_usage: false } })));
    for (const a of answers) {
      expect(a.status).toBe(400);
      expect(JSON.parse(a.text)).toMatchObject({ error: { code: "E_GATEWAY_STREAM_UNSUPPORTED" } });
      expect(a.text).not.toContain("data:");
    }
    expect(upstream.seen).toHaveLength(0);
    // `stream: false` (and no stream at all) is served.
    expect((await call(url, grant.api_key, chat("cheap-model", { stream: false }))).status).toBe(200);
    expect(g.closeItem(account)).toMatchObject({ requests: 1, refused_requests: answers.length, cost_usd: 0.002 });
  });

  it("an answer without usable usage (an upstream streaming anyway) is charged at the call's worst case, marked estimated, and reaches the cap", async () => {
    // Streams whatever is asked: its events carry no usage and name no model.
    upstream.fallback = (res, req) => laxStreaming(res, { ...req, body: { ...req.body, stream: true } });
    const g = await open({ perItemUsd: 0.25 });
    const { account, grant } = g.openItem("item-1");
    const body = JSON.stringify(chat("cheap-model", { max_tokens: 100 }));
    const r = await call(`${grant.base_url}/chat/completions`, grant.api_key, body);
    expect(r.status).toBe(200);
    // No model named: the table's highest prices; every body byte an input token, max_tokens output tokens.
    const worst = (Buffer.byteLength(body) * 1000 + 100 * 2000) / 1e6;
    const again = await call(`${grant.base_url}/chat/completions`, grant.api_key, body);
    expect(again.status).toBe(402);
    const m = g.closeItem(account);
    expect(m).toMatchObject({ requests: 1, requests_without_usage: 1, total_tokens: 0, cap_hit: "item" });
    expect(m.cost_usd).toBeCloseTo(worst, 9);
    expect(m.estimated_cost_usd).toBeCloseTo(worst, 9);
  });

  it("a body with a routing field (models, route, fallbacks, provider…) is refused with 400, never forwarded", async () => {
    upstream.fallback = routing;
    const g = await open();
    const { account, grant } = g.openItem("item-1");
    const tries = [
      { models: ["dear-model", "cheap-model"] },
      { route: "fallback" },
      { fallbacks: ["dear-model"] },
      { fallback_models: ["dear-model"] },
      { context_window_fallback_dict: { "cheap-model": "dear-model" } },
      { provider: { order: ["dear"] } },
      { preset: "dear" },
    ];
    for (const extra of tries) {
      const r = await call(`${grant.base_url}/chat/completions`, grant.api_key, chat("cheap-model", extra));
      expect(r.status, JSON.stringify(extra)).toBe(400);
      expect(JSON.parse(r.text)).toMatchObject({ error: { code: "E_GATEWAY_ROUTING_UNSUPPORTED" } });
    }
    expect(upstream.seen).toHaveLength(0);
    expect(g.closeItem(account)).toMatchObject({ requests: 0, refused_requests: tries.length, cost_usd: 0 });
  });

  it("a call answered by another model than the one asked for is priced as the model that answered; an unpriced or unnamed one at the highest price", async () => {
    const g = await open();
    const { account, grant } = g.openItem("item-1");
    const url = `${grant.base_url}/chat/completions`;
    const answeredAs =
      (model: string | undefined): Step =>
      (res) => {
        res.writeHead(200, { "content-type": "application/json" });
        res.end(JSON.stringify({ object: "chat.completion", model, choices: [], usage: USAGE }));
      };
    // An upstream aliasing the cheap name to the dear model: 1000 * 1000/1e6 + 500 * 2000/1e6 = 2 USD.
    upstream.script.push(answeredAs("dear-model"));
    expect((await call(url, grant.api_key, chat("cheap-model"))).status).toBe(200);
    expect(g.closeItem(account).cost_usd).toBe(2);
    for (const [model, cost] of [
      ["some-unpriced-model", 2], // the table's highest prices
      [undefined, 2],
      ["cheap-model-evil", 2], // not a dated snapshot of cheap-model
      ["cheap-model-2024-07-18", 0.002], // a dated snapshot of the model asked for
    ] as const) {
      const item = g.openItem(`item-${model}`);
      upstream.script.push(answeredAs(model));
      expect((await call(url.replace(grant.base_url, item.grant.base_url), item.grant.api_key, chat())).status).toBe(
        200,
      );
      expect(g.closeItem(item.account).cost_usd, String(model)).toBe(cost);
    }
  });

  it("an item has one call in flight: concurrent calls get 429 and cannot push it past its cap", async () => {
    const N = 12;
    const held: Array<() => void> = [];
    upstream.fallback = (res: ServerResponse, req) => held.push(() => reply("hello", USAGE)(res, req));
    // Each call costs 1000*1/1e6 + 500*2/1e6 = 0.002 USD; the cap is one call's worth.
    const g = await open({ perItemUsd: 0.002 });
    const { account, grant } = g.openItem("item-1");
    let settled = 0;
    const calls = Array.from({ length: N }, () =>
      call(`${grant.base_url}/chat/completions`, grant.api_key, chat()).finally(() => settled++),
    );
    // Every call is either held at the upstream or already answered by the gateway.
    await vi.waitFor(() => expect(held.length + settled).toBe(N), { timeout: 60_000, interval: 20 });
    expect(held).toHaveLength(1);
    for (const release of held.splice(0)) release();
    const answers = await Promise.all(calls);
    expect(answers.filter((a) => a.status === 200)).toHaveLength(1);
    const busy = answers.filter((a) => a.status === 429);
    expect(busy).toHaveLength(N - 1);
    for (const b of busy) expect(JSON.parse(b.text)).toMatchObject({ error: { code: "E_GATEWAY_BUSY" } });
    // Its turn over, the item may call again: now refused by its cap.
    expect((await call(`${grant.base_url}/chat/completions`, grant.api_key, chat())).status).toBe(402);
    const m = g.closeItem(account);
    expect(m).toMatchObject({ requests: 1, refused_requests: N, cost_usd: 0.002, cap_hit: "item" });
  });

  it("an answer broken off midway is charged at its worst case as estimated, and the item may call again", async () => {
    upstream.script.push((res) => {
      res.writeHead(200, { "content-type": "application/json", "content-length": "100000" });
      // Cut once the status and the first bytes are out (the gateway has its 200).
      res.write('{"id":"x","choices":[', () => res.socket?.destroy());
    });
    const g = await open();
    const { account, grant } = g.openItem("item-1");
    const body = JSON.stringify(chat("cheap-model", { max_tokens: 10 }));
    const broken = await call(`${grant.base_url}/chat/completions`, grant.api_key, body);
    expect(broken.status).toBe(502);
    expect(JSON.parse(broken.text)).toMatchObject({ error: { code: "E_GATEWAY_UPSTREAM" } });
    // Not left in flight: the next call is served.
    expect((await call(`${grant.base_url}/chat/completions`, grant.api_key, chat())).status).toBe(200);
    const worst = (Buffer.byteLength(body) * 1000 + 10 * 2000) / 1e6;
    const m = g.closeItem(account);
    expect(m).toMatchObject({ requests: 2, requests_without_usage: 1, prompt_tokens: 1000 });
    expect(m.estimated_cost_usd).toBeCloseTo(worst, 9);
    expect(m.cost_usd).toBeCloseTo(worst + 0.002, 9);
  });

  it("calls of different items in flight at once reserve their worst case: the run's cap refuses the one that could pass it", async () => {
    const held: Array<() => void> = [];
    upstream.fallback = (res: ServerResponse, req) => held.push(() => reply("hello", USAGE)(res, req));
    const g = await open({ perRunUsd: 0.002 });
    const items = ["item-1", "item-2", "item-3"].map((id) => g.openItem(id));
    const first = call(`${items[0]!.grant.base_url}/chat/completions`, items[0]!.grant.api_key, chat());
    await vi.waitFor(() => expect(held).toHaveLength(1), { timeout: 60_000, interval: 20 });
    // The first call's worst case (no max_tokens: the default ceiling at the highest price) is reserved.
    const others = await Promise.all(
      items.slice(1).map((it) => call(`${it.grant.base_url}/chat/completions`, it.grant.api_key, chat())),
    );
    expect(others.map((o) => o.status)).toEqual([402, 402]);
    held.splice(0)[0]!();
    expect((await first).status).toBe(200);
    expect(g.runTotals()).toMatchObject({ requests: 1, refused_requests: 2, cost_usd: 0.002, cap_hit: "run" });
  });
});
