/** GREEN_AUTH_TOKEN: bearer auth on JSON-RPC, advertised on a card that stays public. */
import { afterAll, beforeAll, describe, expect, test } from "vitest";
import { fixtureRunner, startGreen, type StartedGreen } from "../green/helpers.js";
import { post } from "../conformance/agents.js";
import { bearerMatches } from "../../src/a2a/server/bearer-auth.js";

const TOKEN = "s3cret-token-for-tests";

describe("green agent with GREEN_AUTH_TOKEN", () => {
  let green: StartedGreen;
  beforeAll(async () => {
    green = await startGreen(fixtureRunner("events.mjs"), {}, { ...process.env, GREEN_AUTH_TOKEN: TOKEN });
  });
  afterAll(async () => {
    await green?.close();
  });
  const getTask = { jsonrpc: "2.0", id: 1, method: "tasks/get", params: { id: "no-such-task" } };

  test("the card stays public and advertises the bearer scheme (0.3 and 1.0 cards)", async () => {
    const legacy = (await (await fetch(new URL(".well-known/agent-card.json", green.url))).json()) as Record<
      string,
      unknown
    >;
    expect(legacy["securitySchemes"]).toMatchObject({ bearer: { type: "http", scheme: "Bearer" } });
    expect(legacy["security"]).toEqual([{ bearer: [] }]);
    const v1res = await fetch(new URL(".well-known/agent-card.json", green.url), { headers: { "A2A-Version": "1.0" } });
    expect(v1res.status).toBe(200);
    const v1 = (await v1res.json()) as Record<string, unknown>;
    expect(JSON.stringify(v1["securitySchemes"])).toMatch(/Bearer/);
  });

  test("JSON-RPC without the token, or with a wrong one, gets 401 and WWW-Authenticate", async () => {
    for (const headers of [
      {} as Record<string, string>,
      { authorization: "Bearer wrong" },
      { authorization: TOKEN },
      { authorization: `Basic ${TOKEN}` },
    ]) {
      const r = await post(green.url, getTask, headers);
      expect(r.status, JSON.stringify(headers)).toBe(401);
      expect(r.headers.get("www-authenticate")).toMatch(/^Bearer/);
      expect(r.body.error?.code).toBe(-32600);
    }
  });

  test("with the token the request is served; /health stays open for probes", async () => {
    const r = await post(green.url, getTask, { authorization: `Bearer ${TOKEN}` });
    expect(r.status).toBe(200);
    expect(r.body.error?.code).toBe(-32001);
    expect((await fetch(new URL("health", green.url))).status).toBe(200);
  });
});

test("bearerMatches: exact token only", () => {
  expect(bearerMatches(`Bearer ${TOKEN}`, TOKEN)).toBe(true);
  expect(bearerMatches(`bearer   ${TOKEN}`, TOKEN)).toBe(true);
  expect(bearerMatches(`Bearer ${TOKEN}x`, TOKEN)).toBe(false);
  expect(bearerMatches(`Bearer`, TOKEN)).toBe(false);
  expect(bearerMatches(undefined, TOKEN)).toBe(false);
});

test("without GREEN_AUTH_TOKEN the card lists no security and requests need none", async () => {
  const env = { ...process.env };
  delete env["GREEN_AUTH_TOKEN"];
  const green = await startGreen(fixtureRunner("events.mjs"), {}, env);
  try {
    const card = (await (await fetch(new URL(".well-known/agent-card.json", green.url))).json()) as Record<
      string,
      unknown
    >;
    expect(card["security"] ?? []).toEqual([]);
    expect((await post(green.url, { jsonrpc: "2.0", id: 1, method: "tasks/get", params: { id: "x" } })).status).toBe(
      200,
    );
  } finally {
    await green.close();
  }
});
