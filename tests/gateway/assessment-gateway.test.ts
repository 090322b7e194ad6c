import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { startAssessmentGateway, type AssessmentGateway } from "../../src/gateway/assessment-gateway.js";
import type { GatewaySettings } from "../../src/gateway/settings.js";
import { silentLogger } from "../../src/util/logger.js";
import { reply, startStandIn, type StandIn } from "../support/openai-stand-in.js";

const PRICES = {
  "cheap-model": { input_per_million_usd: 1, output_per_million_usd: 2 },
  "dear-model": { input_per_million_usd: 1000, output_per_million_usd: 2000 },
};

function settings(upstream: string): GatewaySettings {
  return {
    upstream,
    upstreamKey: "operator-key",
    prices: PRICES,
    host: "127.0.0.1",
    publicHost: "127.0.0.1",
    upstreamTimeoutMs: 60_000,
  };
}

async function call(
  url: string,
  token: string | undefined,
  body: Record<string, unknown>,
): Promise<{ status: number; body: Record<string, unknown> }> {
  const res = await fetch(url, {
    method: "POST",
    headers: { "content-type": "application/json", ...(token ? { authorization: `Bearer ${token}` } : {}) },
    body: JSON.stringify(body),
  });
  return { status: res.status, body: (await res.json()) as Record<string, unknown> };
}

const chat = (model = "cheap-model") => ({ model, messages: [{ role: "user", content: "hi" }] });
const code = (r: { body: Record<string, unknown> }) => (r.body["error"] as { code?: string } | undefined)?.code;

describe("assessment gateway", () => {
  let upstream: StandIn;
  const gateways: AssessmentGateway[] = [];
  const open = async (caps = {}) => {
    const g = await startAssessmentGateway(settings(upstream.baseUrl), caps, silentLogger());
    gateways.push(g);
    return g;
  };

  beforeEach(async () => {
    upstream = await startStandIn();
    upstream.fallback = reply("hello", { prompt_tokens: 1000, completion_tokens: 500, total_tokens: 1500 });
  });
  afterEach(async () => {
    await Promise.all(gateways.splice(0).map((g) => g.close()));
    await upstream.close();
  });

  it("forwards a chat completion with the operator's key and counts the upstream's usage and its cost", async () => {
    const g = await open();
    const { account, grant } = g.openItem("item-1");
    const r = await call(`${grant.base_url}/chat/completions`, grant.api_key, chat());
    expect(r.status).toBe(200);
    expect((r.body["choices"] as Array<{ message: { content: string } }>)[0]?.message.content).toBe("hello");
    expect(upstream.seen).toHaveLength(1);
    expect(upstream.seen[0]?.auth).toBe("Bearer operator-key");
    expect(upstream.seen[0]?.path).toBe("/v1/chat/completions");
    const used = g.closeItem(account);
    // 1000 × 1 USD/M + 500 × 2 USD/M = 0.002 USD
    expect(used).toMatchObject({
      source: "measured",
      prompt_tokens: 1000,
      completion_tokens: 500,
      total_tokens: 1500,
      requests: 1,
      refused_requests: 0,
      cost_usd: 0.002,
    });
    expect(g.runTotals().cost_usd).toBe(0.002);
  });

  it("forwards /completions too", async () => {
    const g = await open();
    const { grant } = g.openItem("item-1");
    const r = await call(`${grant.base_url}/completions`, grant.api_key, { model: "cheap-model", prompt: "x" });
    expect(r.status).toBe(200);
    expect(upstream.seen[0]?.path).toBe("/v1/completions");
  });

  it("refuses a missing, a wrong and a revoked token, and never forwards them", async () => {
    const g = await open();
    const { account, grant } = g.openItem("item-1");
    const url = `${grant.base_url}/chat/completions`;
    expect(code(await call(url, undefined, chat()))).toBe("E_GATEWAY_UNAUTHORIZED");
    const wrong = await call(url, grant.api_key + "x", chat());
    expect(wrong.status).toBe(401);
    g.closeItem(account);
    const revoked = await call(url, grant.api_key, chat());
    expect(revoked.status).toBe(401);
    expect(code(revoked)).toBe("E_GATEWAY_UNAUTHORIZED");
    expect(upstream.seen).toHaveLength(0);
  });

  it("refuses another assessment's token, on its URL and on this one's", async () => {
    const a = await open();
    const b = await open();
    expect(a.baseUrl).not.toBe(b.baseUrl);
    const fromA = a.openItem("item-1").grant;
    const fromB = b.openItem("item-1").grant;
    expect((await call(`${fromB.base_url}/chat/completions`, fromA.api_key, chat())).status).toBe(401);
    // a's token on b's port with a's path: b does not serve a's path
    const bPort = new URL(fromB.base_url).port;
    const crossed = fromA.base_url.replace(`:${new URL(fromA.base_url).port}/`, `:${bPort}/`);
    expect((await call(`${crossed}/chat/completions`, fromA.api_key, chat())).status).toBe(404);
    expect(upstream.seen).toHaveLength(0);
  });

  it("charges each call to the item whose token it carries: an item cannot bill another", async () => {
    const g = await open();
    const one = g.openItem("item-1");
    const two = g.openItem("item-2");
    await call(`${one.grant.base_url}/chat/completions`, one.grant.api_key, chat());
    await call(`${one.grant.base_url}/chat/completions`, one.grant.api_key, chat());
    await call(`${two.grant.base_url}/chat/completions`, two.grant.api_key, chat());
    // Whatever the participant writes elsewhere (headers, body fields) does not move the charge.
    await fetch(`${one.grant.base_url}/chat/completions`, {
      method: "POST",
      headers: {
        authorization: `Bearer ${one.grant.api_key}`,
        "x-item-id": "item-2",
        "content-type": "application/json",
      },
      body: JSON.stringify({ ...chat(), user: "item-2", metadata: { item: "item-2" } }),
    });
    expect(g.closeItem(one.account).requests).toBe(3);
    expect(g.closeItem(two.account).requests).toBe(1);
    expect(g.runTotals().requests).toBe(4);
  });

  it("refuses an item's calls once its cap is reached (402), the cap hit recorded, other items unaffected", async () => {
    const g = await open({ perItemUsd: 0.003 });
    const one = g.openItem("item-1");
    const url = `${one.grant.base_url}/chat/completions`;
    expect((await call(url, one.grant.api_key, chat())).status).toBe(200); // 0.002
    expect((await call(url, one.grant.api_key, chat())).status).toBe(200); // 0.004: crosses the cap
    const refused = await call(url, one.grant.api_key, chat());
    expect(refused.status).toBe(402);
    expect(code(refused)).toBe("E_GATEWAY_ITEM_CAP");
    const two = g.openItem("item-2");
    expect((await call(url, two.grant.api_key, chat())).status).toBe(200);
    expect(g.closeItem(one.account)).toMatchObject({
      requests: 2,
      refused_requests: 1,
      cap_hit: "item",
      cost_usd: 0.004,
    });
    expect(g.closeItem(two.account).cap_hit).toBeUndefined();
    expect(upstream.seen).toHaveLength(3);
  });

  it("refuses every item's calls once the run's cap is reached", async () => {
    const g = await open({ perRunUsd: 0.003 });
    const one = g.openItem("item-1");
    const url = `${one.grant.base_url}/chat/completions`;
    await call(url, one.grant.api_key, chat());
    await call(url, one.grant.api_key, chat());
    const two = g.openItem("item-2");
    const refused = await call(url, two.grant.api_key, chat());
    expect(refused.status).toBe(402);
    expect(code(refused)).toBe("E_GATEWAY_RUN_CAP");
    expect(g.closeItem(two.account)).toMatchObject({ requests: 0, refused_requests: 1, cap_hit: "run" });
    expect(g.runTotals()).toMatchObject({ requests: 2, refused_requests: 1, cap_hit: "run", cost_usd: 0.004 });
  });

  it("refuses unpriced models, streaming and unreadable output limits with a clear error, and charges nothing", async () => {
    const g = await open();
    const { account, grant } = g.openItem("item-1");
    const url = `${grant.base_url}/chat/completions`;
    const unpriced = await call(url, grant.api_key, chat("free-lunch"));
    expect(unpriced.status).toBe(400);
    expect(code(unpriced)).toBe("E_GATEWAY_UNPRICED_MODEL");
    const streaming = await call(url, grant.api_key, { ...chat(), stream: true });
    expect(code(streaming)).toBe("E_GATEWAY_STREAM_UNSUPPORTED");
    // An output limit the gateway cannot read as a number of tokens: a lax upstream could read it its own way.
    for (const limit of [{ max_tokens: "100" }, { max_completion_tokens: 0 }, { n: 1.5 }]) {
      const r = await call(url, grant.api_key, { ...chat(), ...limit });
      expect(r.status, JSON.stringify(limit)).toBe(400);
      expect(code(r)).toBe("E_GATEWAY_BAD_REQUEST");
    }
    expect(upstream.seen).toHaveLength(0);
    expect(g.closeItem(account)).toMatchObject({ requests: 0, refused_requests: 5, cost_usd: 0 });
  });

  it("counts an answer without usage as such, at no tokens and at its worst-case cost (estimated)", async () => {
    const g = await open();
    upstream.fallback = reply("no usage");
    upstream.script.push((res, req) => {
      res.writeHead(200, { "content-type": "application/json" });
      res.end(JSON.stringify({ id: "x", object: "chat.completion", model: req.body.model, choices: [] }));
    });
    const { account, grant } = g.openItem("item-1");
    expect((await call(`${grant.base_url}/chat/completions`, grant.api_key, chat())).status).toBe(200);
    const m = g.closeItem(account);
    expect(m).toMatchObject({ requests: 1, requests_without_usage: 1, total_tokens: 0 });
    expect(m.cost_usd).toBeGreaterThan(0);
    expect(m.estimated_cost_usd).toBe(m.cost_usd);
  });

  it("closes: the URL no longer answers", async () => {
    const g = await open();
    const { grant } = g.openItem("item-1");
    await g.close();
    gateways.splice(gateways.indexOf(g), 1);
    await expect(call(`${grant.base_url}/chat/completions`, grant.api_key, chat())).rejects.toThrow();
  });
});
