import { afterEach, describe, expect, it } from "vitest";
import { get as httpGet } from "node:http";
import type { AgentCard } from "@a2a-js/sdk";
import { createA2AExpressApp } from "../../../src/a2a/server/express-app.js";
import { PurpleExecutor } from "../../../src/purple/executor.js";
import { createSolver } from "../../../src/purple/solvers/index.js";
import { silentLogger } from "../../../src/util/logger.js";
import { serveOnLoopback } from "../helpers.js";

let close: (() => Promise<void>) | undefined;
afterEach(async () => {
  await close?.();
  close = undefined;
});

describe("the agent card's kept answers (card-cache.ts)", () => {
  it("replays the SDK's answer per wire version, answers If-None-Match with 304, and follows a description change", async () => {
    let served!: AgentCard;
    const solver = await createSolver("echo");
    const s = await serveOnLoopback((card) =>
      createA2AExpressApp({
        card,
        executor: new PurpleExecutor(solver, silentLogger()),
        logger: silentLogger(),
        onCard: (c) => (served = c),
      }),
    );
    close = () => s.close();
    const url = new URL(".well-known/agent-card.json", s.url);
    const get = async (headers: Record<string, string> = {}) => {
      const r = await fetch(url, { headers });
      return {
        status: r.status,
        etag: r.headers.get("etag"),
        version: r.headers.get("a2a-version"),
        body: await r.text(),
      };
    };
    const first = await get();
    const again = await get();
    expect(first.status).toBe(200);
    expect(again).toEqual(first);
    const v1 = await get({ "A2A-Version": "1.0" });
    expect(v1.status).toBe(200);
    expect(v1.body).not.toBe(first.body); // the 1.0 shape, not the 0.3 one kept for header-less requests
    expect(await get({ "A2A-Version": "1.0" })).toEqual(v1);
    // fetch() adds Cache-Control: no-cache to a conditional request (which is never "fresh"): plain http here.
    const conditional = await new Promise<number>((resolve, reject) =>
      httpGet(url, { headers: { "If-None-Match": first.etag! } }, (r) => {
        r.resume();
        resolve(r.statusCode ?? 0);
      }).on("error", reject),
    );
    expect(conditional).toBe(304);
    served.description = "changed";
    const changed = await get();
    expect(changed.status).toBe(200);
    expect(JSON.parse(changed.body).description).toBe("changed");
    expect(changed.etag).not.toBe(first.etag);
  });
});
