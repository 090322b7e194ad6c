/**
 * The green agent behind the AgentBeats gateway, as an Amber scenario wires it: the gateway sends one
 * streaming assessment request (A2A 0.3, as its Python client does) to the green, hands out the
 * participant as `<gateway>/<role>` (a path prefix), rewrites the participant's loopback card URL to
 * itself, gives each proxied request 300 s, and publishes what it collects from the completed task's
 * artifacts: every DataPart's data and every TextPart that parses as JSON (src/assessment.py). The green
 * is the real CLI started with the Amber manifest's flags; the purple is the real app in gold mode.
 */
import { afterEach, describe, expect, it } from "vitest";
import express from "express";
import { existsSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { createA2AClient } from "../../src/a2a/client/client.js";
import { createPurpleApp } from "../../src/purple/app.js";
import { createSolver } from "../../src/purple/solvers/index.js";
import { validateBundle } from "../../src/bundle/validate.js";
import { streamAssessment, type CollectedArtifact } from "../../src/smoke/assessment-stream.js";
import { cliEntry } from "../../src/util/package-root.js";
import { serveOnLoopback } from "../a2a/helpers.js";
import { freePort, startCli, until, type CliChild } from "../scenario/helpers.js";
import { startGatewayStandIn, type GatewayStandIn } from "../support/gateway-stand-in.js";

let cleanups: (() => Promise<void> | void)[] = [];
afterEach(async () => {
  for (const c of cleanups.reverse()) await c();
  cleanups = [];
});

/** What the gateway publishes from a completed task's artifacts (each part on its own). */
function gatewayResults(artifacts: readonly CollectedArtifact[]): unknown[] {
  const out: unknown[] = [];
  for (const a of artifacts)
    for (const p of a.parts) {
      if (p.content?.$case === "data") out.push(p.content.value);
      else if (p.content?.$case === "text")
        try {
          out.push(JSON.parse(p.content.value));
        } catch {
          // prose: not a result
        }
    }
  return out;
}

async function startGreen(dir: string): Promise<{ url: string; cli: CliChild }> {
  const port = await freePort();
  // The Amber manifest's flags and env, on loopback with a free port.
  const cli = startCli(
    ["green", "--host", "127.0.0.1", "--port", String(port), "--card-url", `http://127.0.0.1:${port}/`],
    {
      cwd: dir,
      env: { ...process.env, GREEN_ALLOW_UNAUTHENTICATED: "1", GREEN_RESULTS_DIR: join(dir, "results") },
    },
  );
  cleanups.push(async () => {
    if (cli.child.exitCode === null) cli.child.kill("SIGTERM");
    await cli.exited;
  });
  const url = `http://127.0.0.1:${port}/`;
  await until(
    async () => (await fetch(`${url}.well-known/agent-card.json`).catch(() => undefined))?.ok === true,
    30_000,
    `the green agent's card (output so far: ${cli.output()})`,
  );
  return { url, cli };
}

/** The purple (gold) served on loopback, recording whether each request came through the gateway. */
async function startPurple(seen: boolean[]): Promise<string> {
  const solver = await createSolver("gold");
  const served = await serveOnLoopback((card) => {
    const app = express();
    app.use((req, _res, next) => {
      seen.push(req.headers["x-gateway-stand-in"] === "1");
      next();
    });
    app.use(createPurpleApp({ card, solver }));
    return app;
  });
  cleanups.push(() => served.close());
  return served.url;
}

describe("the green agent behind the AgentBeats gateway", () => {
  it(
    "reaches the participant only through the path-prefixed proxy and publishes the bundle as a collected result",
    { timeout: 120_000 },
    async () => {
      if (!existsSync(cliEntry)) throw new Error("dist/cli.js missing: run `npm run build` first");
      const dir = mkdtempSync(join(tmpdir(), "a2a-amber-"));
      cleanups.push(() => rmSync(dir, { recursive: true, force: true }));
      const seen: boolean[] = [];
      const purpleUrl = await startPurple(seen);
      const gateway: GatewayStandIn = await startGatewayStandIn({ agent: purpleUrl });
      cleanups.push(() => gateway.close());
      const green = await startGreen(dir);

      // The card the green would read through the gateway advertises the gateway, not the purple.
      const card = (await (await fetch(`${gateway.url}/agent/.well-known/agent-card.json`)).json()) as { url: string };
      expect(card.url).toBe(`${gateway.url}/agent/`);

      const client = await createA2AClient(green.url, "0.3");
      const progress: string[] = [];
      const outcome = await streamAssessment(
        client,
        {
          participants: { agent: `${gateway.url}/agent` },
          config: { benchmark: "humaneval", dataset: "sample", samples: 3, run_id: "behind-gateway" },
        },
        (u) => {
          if (u.text) progress.push(u.text);
        },
      );
      expect(outcome.finalState, outcome.lastStatusText).toBe("completed");
      expect(progress.length).toBeGreaterThan(0);

      const results = gatewayResults(outcome.artifacts);
      const bundle = results.find(
        (r): r is Record<string, unknown> => r !== null && typeof r === "object" && "metrics" in r && "run_id" in r,
      );
      expect(bundle, JSON.stringify(results).slice(0, 500)).toBeDefined();
      expect(validateBundle(bundle)).toEqual([]);
      expect(bundle).toMatchObject({ status: "ok", run_id: "behind-gateway" });
      expect((bundle!["metrics"] as { accuracy: number }).accuracy).toBe(1); // gold answers, all pass

      // Every request the purple saw came through the proxy, under the role's prefix.
      expect(seen.length).toBeGreaterThan(0);
      expect(seen.every(Boolean)).toBe(true);
      expect(gateway.requests.some((r) => r.method === "POST")).toBe(true);
      expect(gateway.requests.every((r) => r.role === "agent")).toBe(true);
    },
  );

  it(
    "a participant the gateway cannot route (unknown role) fails the run as the participant's, with no score",
    { timeout: 90_000 },
    async () => {
      if (!existsSync(cliEntry)) throw new Error("dist/cli.js missing: run `npm run build` first");
      const dir = mkdtempSync(join(tmpdir(), "a2a-amber-"));
      cleanups.push(() => rmSync(dir, { recursive: true, force: true }));
      const seen: boolean[] = [];
      const purpleUrl = await startPurple(seen);
      const gateway = await startGatewayStandIn({ agent: purpleUrl });
      cleanups.push(() => gateway.close());
      const green = await startGreen(dir);
      const client = await createA2AClient(green.url, "0.3");
      const outcome = await streamAssessment(
        client,
        {
          participants: { agent: `${gateway.url}/nobody` },
          config: { benchmark: "humaneval", dataset: "sample", samples: 2, run_id: "unroutable" },
        },
        () => {},
      );
      expect(outcome.finalState).toBe("failed");
      expect(outcome.lastStatusText).toContain(`${gateway.url}/nobody`);
      expect(seen).toEqual([]);
      // What the gateway would publish: nothing, as it collects only from a completed task.
      expect(outcome.finalState === "completed" ? gatewayResults(outcome.artifacts) : []).toEqual([]);
    },
  );
});
