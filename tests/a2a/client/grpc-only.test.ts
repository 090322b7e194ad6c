/**
 * A participant that offers ONLY gRPC: its card lists GRPC and nothing else, and its HTTP server
 * answers the card alone. The participant client picks gRPC from the card and gets its answer; the
 * card's gRPC target is pinned to the host we were given (its port kept), so a card naming another
 * host cannot move our requests there.
 */
import { afterEach, describe, expect, it } from "vitest";
import { createA2AClient, pinGrpcTarget } from "../../../src/a2a/client/client.js";
import { createA2AParticipant } from "../../../src/a2a/client/participant-client.js";
import { createPurpleApp } from "../../../src/purple/app.js";
import { createSingleShotEchoSolver } from "../../../src/purple/solvers/echo.js";
import { silentLogger } from "../../../src/util/logger.js";
import { serveGrpcAgent, type GrpcAgent } from "../grpc-agent.js";

let agent: GrpcAgent | undefined;
afterEach(async () => {
  await agent?.close();
  agent = undefined;
});

async function grpcOnlyEcho(grpcCardTarget?: (port: number) => string): Promise<GrpcAgent> {
  agent = await serveGrpcAgent(
    (card, onRequestHandler) => createPurpleApp({ card, solver: createSingleShotEchoSolver(), onRequestHandler }),
    { grpcOnly: true, ...(grpcCardTarget ? { grpcCardTarget } : {}) },
  );
  return agent;
}

describe("a gRPC-only participant", () => {
  it("the participant client picks gRPC from the card and gets the answer; HTTP served only the card", async () => {
    const a = await grpcOnlyEcho();
    const p = createA2AParticipant({ url: a.url, timeoutMs: 30_000, logger: silentLogger() });
    await p.check!(new AbortController().signal);
    const reply = await p.ask({ text: "q", data: { item: 7 } }, new AbortController().signal);
    await p.close();
    expect(reply.data).toEqual([{ ok: true, echo: { item: 7 } }]);
    expect(reply.state).toBe("completed");
    expect(a.httpHits.every((h) => h.startsWith("GET /.well-known/agent-card.json"))).toBe(true);
  });

  it("createA2AClient chooses GRPC when the card offers nothing else, whatever binding was preferred", async () => {
    const a = await grpcOnlyEcho();
    for (const binding of ["JSONRPC", "HTTP+JSON", "GRPC"] as const) {
      const client = await createA2AClient(a.url, "1.0", binding);
      expect(client.transport.protocolName).toBe("GRPC");
    }
  });

  it("a card naming another host for gRPC is asked on the host we were given, at the card's port", async () => {
    const a = await grpcOnlyEcho((port) => `unreachable.invalid:${port}`);
    const p = createA2AParticipant({ url: a.url, timeoutMs: 30_000, logger: silentLogger() });
    const reply = await p.ask({ text: "pinned" }, new AbortController().signal);
    await p.close();
    expect(reply.data).toEqual([{ ok: true, echo: "pinned" }]);
  });
});

describe("pinGrpcTarget", () => {
  it("keeps the card's port, takes our host; a port-less target is 443", () => {
    expect(pinGrpcTarget("evil.example:5005", "http://127.0.0.1:9998/")).toBe("127.0.0.1:5005");
    expect(pinGrpcTarget("grpc://evil.example:7/a2a", "http://purple:9009/x/")).toBe("purple:7");
    expect(pinGrpcTarget("evil.example", "http://127.0.0.1:9998/")).toBe("127.0.0.1:443");
  });
});
