/**
 * The participant check before the first item: an agent served under a path
 * prefix (as the AgentBeats gateway serves `/purple/...`) is found with and
 * without the trailing slash; a missing one fails with the URL and the cause.
 */
import { afterAll, beforeAll, describe, expect, test } from "vitest";
import express from "express";
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { createPurpleApp } from "../../src/purple/app.js";
import type { Solver } from "../../src/purple/solver.js";
import { cardFromToml } from "../../src/a2a/shared/card.js";
import { createA2AParticipant } from "../../src/a2a/client/participant-client.js";
import { InfrastructureError } from "../../src/util/infrastructure-error.js";
import { silentLogger } from "../../src/util/logger.js";

const solver: Solver = {
  mode: "probe",
  async solve(input) {
    return { text: `echo ${input.text}` };
  },
};

/** A gateway-like server: the purple agent mounted under /purple, plus odd routes for failures. */
let server: Server;
let base: string;
beforeAll(async () => {
  const gw = express();
  server = createServer(gw);
  await new Promise<void>((r) => server.listen(0, "127.0.0.1", () => r()));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  // The card advertises the prefixed URL (what --card-url says behind a gateway), without the trailing slash.
  gw.use(
    "/purple",
    createPurpleApp({
      card: cardFromToml({ name: "purple", url: `${base}/purple`, version: "1", skills: [] }),
      solver,
    }),
  );
  gw.get("/badjson/.well-known/agent-card.json", (_req, res) => {
    res.type("application/json").send("{not json");
  });
  gw.get("/moved/.well-known/agent-card.json", (_req, res) => {
    res.redirect(307, "/purple/.well-known/agent-card.json");
  });
  gw.get("/notcard/.well-known/agent-card.json", (_req, res) => {
    res.json({ hello: "world" });
  });
});
afterAll(async () => {
  await new Promise<void>((r) => server.close(() => r()));
  server.closeAllConnections();
});

const participant = (url: string) =>
  createA2AParticipant({ url, timeoutMs: 10_000, attempts: 2, logger: silentLogger() });

describe("purple served under a path prefix", () => {
  test.each(["/purple", "/purple/"])("URL %s: the check passes and a question is answered", async (path) => {
    const p = participant(`${base}${path}`);
    await p.check!(new AbortController().signal);
    const reply = await p.ask({ text: "hi" }, new AbortController().signal);
    expect(reply.text).toContain("echo hi");
    expect(reply.state).toBe("completed");
    await p.close();
  });

  test("the card is not at the host root (what the SDK alone would fetch for /purple)", async () => {
    expect((await fetch(`${base}/.well-known/agent-card.json`)).status).toBe(404);
  });
});

describe("a participant that cannot be reached fails the check with its URL and the cause", () => {
  async function checkError(url: string): Promise<InfrastructureError> {
    const err = await participant(url).check!(new AbortController().signal).then(
      () => null,
      (e: unknown) => e,
    );
    expect(err).toBeInstanceOf(InfrastructureError);
    const infra = err as InfrastructureError;
    expect(infra.code).toBe("E_PARTICIPANT_UNREACHABLE");
    expect(infra.message).toContain(url);
    expect(infra.fix).toMatch(/agent card must be served at/);
    return infra;
  }

  test("nothing listening → connection refused", async () => {
    const closed = createServer();
    await new Promise<void>((r) => closed.listen(0, "127.0.0.1", () => r()));
    const port = (closed.address() as AddressInfo).port;
    await new Promise<void>((r) => closed.close(() => r()));
    expect((await checkError(`http://127.0.0.1:${port}/purple`)).message).toMatch(/connection refused/);
  });

  test("wrong path → HTTP 404", async () => {
    expect((await checkError(`${base}/nobody`)).message).toMatch(/HTTP 404/);
  });

  test("a card that is not JSON", async () => {
    expect((await checkError(`${base}/badjson`)).message).toMatch(/not JSON/);
  });

  test("a card URL that redirects (redirects are never followed)", async () => {
    expect((await checkError(`${base}/moved`)).message).toMatch(/answered a redirect, which is not followed/);
  });

  test("JSON that is not a card", async () => {
    expect((await checkError(`${base}/notcard`)).message).toMatch(/not an agent card/);
  });

  test("a server that never answers → timeout", async () => {
    const silent = createServer(() => {
      /* never answers */
    });
    await new Promise<void>((r) => silent.listen(0, "127.0.0.1", () => r()));
    try {
      const url = `http://127.0.0.1:${(silent.address() as AddressInfo).port}/purple`;
      const p = createA2AParticipant({
        url,
        timeoutMs: 10_000,
        attempts: 1,
        cardTimeoutMs: 300,
        logger: silentLogger(),
      });
      const err = (await p.check!(new AbortController().signal).catch((e: unknown) => e)) as InfrastructureError;
      expect(err.code).toBe("E_PARTICIPANT_UNREACHABLE");
      expect(err.message).toMatch(/no answer from .*purple\/\.well-known\/agent-card\.json in time/);
    } finally {
      silent.closeAllConnections();
      await new Promise<void>((r) => silent.close(() => r()));
    }
  });

  test("unknown host", async () => {
    expect((await checkError("http://no-such-host.invalid/purple")).message).toMatch(/host not found|request failed/);
  });
});
