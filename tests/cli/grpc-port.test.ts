/**
 * `a2a-bench purple|green --grpc-port 0` through the built CLI (dist/cli.js: `npm run build` first): the
 * gRPC binding is served beside the HTTP ones on a free port, listed in the card, answers the SDK's own
 * gRPC client, and SIGTERM stops it with the agent (both ports free again, the process gone).
 */
import { spawn, type ChildProcess } from "node:child_process";
import { afterEach, describe, expect, it } from "vitest";
import { credentials } from "@grpc/grpc-js";
import type { AgentCard, Task } from "@a2a-js/sdk";
import { Client, ClientFactory, ClientFactoryOptions } from "@a2a-js/sdk/client";
import { GrpcTransportFactory } from "@a2a-js/sdk/client/grpc";
import { cliEntry } from "../../src/util/package-root.js";
import { partData, textPart, userMessage } from "../../src/a2a/shared/parts.js";
import { portIsFree } from "../a2a/grpc-agent.js";

let child: ChildProcess | undefined;
afterEach(() => {
  if (child && child.exitCode === null && child.signalCode === null) child.kill("SIGKILL");
  child = undefined;
});

interface Started {
  url: string;
  grpcPort: number;
  exited: Promise<number | null>;
}

/** Start the agent; resolves once its log lines have named its URL and its gRPC port. */
function start(args: string[]): Promise<Started> {
  const proc = spawn(process.execPath, [cliEntry, ...args], { stdio: ["ignore", "pipe", "pipe"] });
  child = proc;
  const exited = new Promise<number | null>((r) => proc.once("exit", (code) => r(code)));
  return new Promise((resolve, reject) => {
    let buf = "";
    proc.stdout.setEncoding("utf8");
    let url: string | undefined;
    let grpcPort: number | undefined;
    proc.stdout.on("data", (d: string) => {
      buf += d;
      const lines = buf.split("\n");
      buf = lines.pop() ?? ""; // a line not yet ended waits for its end
      for (const line of lines) {
        if (!line.startsWith("{")) continue;
        const rec = JSON.parse(line) as { url?: string; grpcPort?: number };
        url ??= rec.url;
        grpcPort ??= rec.grpcPort;
        if (url && grpcPort) resolve({ url, grpcPort, exited });
      }
    });
    proc.once("exit", (code) => reject(new Error(`exited ${code} before listening: ${buf}`)));
  });
}

async function grpcClient(url: string): Promise<Client> {
  const factory = new ClientFactory({
    ...ClientFactoryOptions.default,
    transports: [new GrpcTransportFactory({ grpcChannelCredentials: credentials.createInsecure() })],
  });
  return factory.createFromUrl(url);
}

async function stop(s: Started): Promise<void> {
  child!.kill("SIGTERM");
  await s.exited;
  expect(child!.exitCode !== null || child!.signalCode !== null).toBe(true);
  expect(await portIsFree(s.grpcPort)).toBe(true);
  expect(await portIsFree(Number(new URL(s.url).port))).toBe(true);
}

describe("--grpc-port", () => {
  it("purple: the card lists GRPC at the port; the SDK's gRPC client gets the echo; SIGTERM frees both ports", async () => {
    const s = await start(["purple", "--port", "0", "--grpc-port", "0", "--mode", "echo"]);
    const card = (await (await fetch(new URL(".well-known/agent-card.json", s.url))).json()) as {
      supportedInterfaces: Array<{ url: string; protocolBinding: string }>;
    };
    expect(card.supportedInterfaces).toContainEqual(
      expect.objectContaining({ protocolBinding: "GRPC", url: `127.0.0.1:${s.grpcPort}` }),
    );
    const client = await grpcClient(s.url);
    expect(client.transport.protocolName).toBe("GRPC");
    const task = (await client.sendMessage({
      tenant: "",
      message: userMessage([textPart("over gRPC from the CLI")]),
      configuration: undefined,
      metadata: undefined,
    })) as Task;
    expect(partData(task.artifacts[0]!.parts[0]!)).toEqual({ ok: true, echo: "over gRPC from the CLI" });
    await stop(s);
  }, 60_000);

  it("green: served over gRPC too (an unknown task is TaskNotFound from the green); SIGTERM frees both ports", async () => {
    const s = await start(["green", "--port", "0", "--grpc-port", "0"]);
    const client = await grpcClient(s.url);
    expect(client.transport.protocolName).toBe("GRPC");
    const card: AgentCard = await client.getAgentCard();
    expect(card.supportedInterfaces.map((i) => i.protocolBinding)).toContain("GRPC");
    await expect(client.getTask({ tenant: "", id: "no-such-task", historyLength: undefined })).rejects.toThrow(
      /not found/i,
    );
    await stop(s);
  }, 60_000);
});
