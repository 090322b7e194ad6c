/**
 * The gRPC binding beside the HTTP ones: the SDK's own gRPC client transport (`@a2a-js/sdk/client/grpc`)
 * sends a message to our purple over gRPC and reads the task back over JSON-RPC (one request handler,
 * one task store); the card lists GRPC for 1.0 and 0.3; a bearer token guards gRPC calls as it guards
 * HTTP; closing releases the port; a port in use names --grpc-port.
 */
import { afterEach, describe, expect, it } from "vitest";
import { credentials } from "@grpc/grpc-js";
import { TaskState, type AgentCard, type Task } from "@a2a-js/sdk";
import { Client, ClientFactory, ClientFactoryOptions } from "@a2a-js/sdk/client";
import { GrpcTransportFactory } from "@a2a-js/sdk/client/grpc";
import { createA2AClient } from "../../../src/a2a/client/client.js";
import { GRPC_PORT_FLAG, listenGrpc } from "../../../src/a2a/server/grpc-server.js";
import { PortInUseError } from "../../../src/a2a/server/port-in-use.js";
import { GRPC_BINDING } from "../../../src/a2a/shared/card.js";
import { partData, partText, textPart, userMessage } from "../../../src/a2a/shared/parts.js";
import { createPurpleApp } from "../../../src/purple/app.js";
import { createSingleShotEchoSolver } from "../../../src/purple/solvers/echo.js";
import { silentLogger } from "../../../src/util/logger.js";
import { portIsFree, serveGrpcAgent, type GrpcAgent } from "../grpc-agent.js";

let agent: GrpcAgent | undefined;
afterEach(async () => {
  await agent?.close();
  agent = undefined;
});

async function echoPurple(options: Parameters<typeof serveGrpcAgent>[1] = {}): Promise<GrpcAgent> {
  agent = await serveGrpcAgent(
    (card, onRequestHandler) => createPurpleApp({ card, solver: createSingleShotEchoSolver(), onRequestHandler }),
    options,
  );
  return agent;
}

async function cardOf(url: string): Promise<AgentCard> {
  const client = await createA2AClient(url);
  return client.getAgentCard();
}

/** The SDK's gRPC client alone (no other transport), from the card at `url`. */
async function sdkGrpcClient(url: string): Promise<Client> {
  // Not ClientFactoryOptions.createFrom: it merges the default JSON-RPC and REST transports back in.
  const factory = new ClientFactory({
    ...ClientFactoryOptions.default,
    transports: [new GrpcTransportFactory({ grpcChannelCredentials: credentials.createInsecure() })],
  });
  return factory.createFromUrl(url);
}

function send(text: string) {
  return {
    tenant: "",
    message: userMessage([textPart(text)]),
    configuration: { acceptedOutputModes: [], taskPushNotificationConfig: undefined, returnImmediately: false },
    metadata: undefined,
  };
}

function replyText(result: unknown): string {
  const task = result as Task;
  const parts = [...task.artifacts.flatMap((a) => a.parts), ...(task.status?.message?.parts ?? [])];
  return parts.map((p) => partText(p) ?? JSON.stringify(partData(p) ?? null)).join("");
}

describe("the gRPC binding", () => {
  it("the card lists GRPC at host:port, for 1.0 and for 0.3, after the HTTP bindings", async () => {
    const a = await echoPurple();
    const card = await cardOf(a.url);
    const grpc = card.supportedInterfaces.filter((i) => i.protocolBinding === GRPC_BINDING);
    expect(grpc.map((i) => [i.url, i.protocolVersion])).toEqual([
      [`127.0.0.1:${a.grpc.port}`, "1.0"],
      [`127.0.0.1:${a.grpc.port}`, "0.3"],
    ]);
    expect(card.supportedInterfaces[0]?.protocolBinding).toBe("JSONRPC");
  });

  it("the SDK's gRPC client sends our purple a message; the task is read back over JSON-RPC", async () => {
    const a = await echoPurple();
    const client = await sdkGrpcClient(a.url);
    expect(client.transport.protocolName).toBe("GRPC");
    const task = (await client.sendMessage(send("over gRPC"))) as Task;
    expect(task.status?.state).toBe(TaskState.TASK_STATE_COMPLETED);
    expect(replyText(task)).toContain("over gRPC");
    // The same request handler answers JSON-RPC: the task sent over gRPC is there.
    const jsonrpc = await createA2AClient(a.url, "1.0", "JSONRPC");
    const got = await jsonrpc.getTask({ tenant: "", id: task.id, historyLength: undefined });
    expect(got.status?.state).toBe(TaskState.TASK_STATE_COMPLETED);
    // And over gRPC: GetTask.
    const again = await client.getTask({ tenant: "", id: task.id, historyLength: undefined });
    expect(again.id).toBe(task.id);
  });

  it("streams over gRPC (SendStreamingMessage) to a final task state", async () => {
    const a = await echoPurple();
    const client = await sdkGrpcClient(a.url);
    expect(client.transport.protocolName).toBe("GRPC");
    const seen: string[] = [];
    for await (const ev of client.sendMessageStream(send("stream me"))) seen.push(JSON.stringify(ev));
    expect(seen.length).toBeGreaterThan(0);
    expect(seen.join("\n")).toContain("stream me");
  });

  it("with a bearer token, a call without it ends UNAUTHENTICATED and one with it is answered", async () => {
    const a = await echoPurple({ serve: { authToken: "s3cret" } });
    const client = await sdkGrpcClient(a.url);
    expect(client.transport.protocolName).toBe("GRPC");
    await expect(client.sendMessage(send("no token"))).rejects.toThrow(/Unauthorized|UNAUTHENTICATED|16/);
    const task = (await client.sendMessage(send("with token"), {
      serviceParameters: { authorization: "Bearer s3cret" },
    })) as Task;
    expect(replyText(task)).toContain("with token");
    await expect(
      client.sendMessage(send("wrong token"), { serviceParameters: { authorization: "Bearer nope" } }),
    ).rejects.toThrow();
  });

  it("closing releases the port", async () => {
    const a = await echoPurple();
    const port = a.grpc.port;
    expect(await portIsFree(port)).toBe(false);
    await a.close();
    agent = undefined;
    expect(await portIsFree(port)).toBe(true);
  });

  it("a port in use is a PortInUseError naming --grpc-port", async () => {
    const first = await listenGrpc("127.0.0.1", 0, { logger: silentLogger() });
    try {
      const err = await listenGrpc("127.0.0.1", first.port, { logger: silentLogger() }).catch((e: unknown) => e);
      expect(err).toBeInstanceOf(PortInUseError);
      expect((err as Error).message).toContain(GRPC_PORT_FLAG);
    } finally {
      await first.close();
    }
  });
});
