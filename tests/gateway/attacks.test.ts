/**
 * The model gateway attacked as a participant would: calls it should not get
 * for free, costs it should not be able to hide or move, secrets it should not
 * see, a gateway it should not be able to break. Each test is a defence that
 * holds; `it.fails` marks an attack that still succeeds (a known hole, kept
 * visible until it is closed).
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

  // HOLE: only the literal `stream: true` is refused. An upstream that reads "true" (or 1) as true streams its
  // answer; the gateway passes the events through and counts the call as one without usage, at 0 USD, so the
  // participant gets its tokens free and no cap is ever reached.
  it.fails(
    'a stream asked for as "true" or 1 is refused, or its tokens counted (lax upstreams stream it)',
    async () => {
      upstream.fallback = laxStreaming;
      const g = await open({ perItemUsd: 0.000001 });
      const { account, grant } = g.openItem("item-1");
      const answers = [];
      for (const stream of ["true", 1, "yes", "true", "true"])
        answers.push(await call(`${grant.base_url}/chat/completions`, grant.api_key, chat("cheap-model", { stream })));
      const m = g.closeItem(account);
      // Either refused (the defence), or counted and capped after the first.
      const served = answers.filter((a) => a.status === 200);
      expect(served.every((a) => !a.text.includes("data:")) || m.cost_usd > 0).toBe(true);
      expect(served.length).toBeLessThanOrEqual(1);
    },
  );

  // HOLE: the price is the requested `model`'s; the answer's own `model` is not checked. A router upstream that
  // takes a fallback list (`models`) answers from the dear model while the call is priced as the cheap one.
  it.fails("a call answered by another model than the priced one is priced as the model that answered", async () => {
    upstream.fallback = routing;
    const g = await open();
    const { account, grant } = g.openItem("item-1");
    const r = await call(
      `${grant.base_url}/chat/completions`,
      grant.api_key,
      chat("cheap-model", { models: ["dear-model", "cheap-model"] }),
    );
    const m = g.closeItem(account);
    // Refused, or priced at the dear model's rate (1000 * 1000/1e6 + 500 * 2000/1e6 = 2 USD).
    expect(r.status !== 200 || m.cost_usd >= 2).toBe(true);
  });

  // Documented limit ("calls in flight at once each pass the check"), kept visible with its figure: the overshoot is
  // bounded only by how many calls the participant has in flight, not by one call's cost.
  it.fails("concurrent calls cannot push an item further past its cap than one call's cost", async () => {
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
    for (const release of held.splice(0)) release();
    await Promise.all(calls);
    const m = g.closeItem(account);
    expect(m.cost_usd).toBeLessThanOrEqual(0.002 * 2);
  });
});
