/**
 * One real assessment where every hop is gRPC: the assessment request reaches the green over its
 * gRPC binding (the SDK's own gRPC client transport), and the green's runner (dist/cli.js, so
 * `npm run build` first) reaches a purple in `gold` mode that offers ONLY gRPC (its HTTP server
 * answers the agent card alone), picking the binding from that card.
 */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, expect, test } from "vitest";
import { credentials } from "@grpc/grpc-js";
import { TaskState, type Task } from "@a2a-js/sdk";
import { GrpcTransportFactory } from "@a2a-js/sdk/client/grpc";
import { Client } from "@a2a-js/sdk/client";
import { partData } from "../../src/a2a/shared/parts.js";
import { createGreenApp, type GreenApp } from "../../src/green/app.js";
import { defaultRunnerCommand } from "../../src/green/runner-command.js";
import { createPurpleApp } from "../../src/purple/app.js";
import { createGoldSolver } from "../../src/purple/solvers/gold.js";
import { validateBundle } from "../../src/bundle/validate.js";
import { serveGrpcAgent, type GrpcAgent } from "../a2a/grpc-agent.js";
import { FULL_ISOLATION, requestOf } from "./helpers.js";

let green: GrpcAgent | undefined;
let greenApp: GreenApp | undefined;
let purple: GrpcAgent | undefined;
let resultsRoot: string | undefined;
afterEach(async () => {
  await greenApp?.shutdown();
  await green?.close();
  await purple?.close();
  if (resultsRoot) rmSync(resultsRoot, { recursive: true, force: true });
  green = purple = greenApp = resultsRoot = undefined;
});

test("green, asked over gRPC, scores the HumanEval sample against a gold purple that offers only gRPC", async () => {
  purple = await serveGrpcAgent(
    (card, onRequestHandler) => createPurpleApp({ card, solver: createGoldSolver(), onRequestHandler }),
    { grpcOnly: true },
  );
  const root = (resultsRoot = mkdtempSync(join(tmpdir(), "green-grpc-test-")));
  // The green with its gRPC binding, listed in its card (a 1.0 gRPC call is served only when the card lists it).
  green = await serveGrpcAgent((card, onRequestHandler) => {
    greenApp = createGreenApp({
      card,
      runnerCommand: defaultRunnerCommand(process.env),
      settings: { resultsRoot: root, graceMs: 1_000, heartbeatMs: 30_000, maxConcurrent: 1 },
      isolation: FULL_ISOLATION,
    });
    onRequestHandler(greenApp.requestHandler);
    return greenApp.app;
  });
  const card = await greenApp!.requestHandler.getAgentCard();
  const target = card.supportedInterfaces.find((i) => i.protocolBinding === "GRPC")!.url;
  expect(target).toBe(`127.0.0.1:${green.grpc.port}`);
  const transport = await new GrpcTransportFactory({ grpcChannelCredentials: credentials.createInsecure() }).create(
    target,
    card,
  );
  const client = new Client(transport, card);
  const body = { participants: { agent: purple.url }, config: { benchmark: "humaneval", run_id: "grpc-gold", k: [1] } };
  const task = (await client.sendMessage(requestOf(body))) as Task;
  expect(task.status?.state, JSON.stringify(task.status?.message?.parts ?? task.artifacts).slice(0, 1500)).toBe(
    TaskState.TASK_STATE_COMPLETED,
  );
  const bundle = partData(task.artifacts.find((a) => a.name === "evaluation_bundle")!.parts[0]!)!;
  expect(validateBundle(bundle)).toEqual([]);
  expect(bundle["status"]).toBe("ok");
  expect(bundle["metrics"]).toMatchObject({ accuracy: 1, total: 12, pass_at_k: { "pass@1": 1 } });
  // The purple's HTTP server served the card and nothing else: every answer went over gRPC.
  expect(purple.httpHits.length).toBeGreaterThan(0);
  expect(purple.httpHits.every((h) => h.startsWith("GET /.well-known/agent-card.json"))).toBe(true);
}, 180_000);
