/** Shared test helpers: serve an agent app on 127.0.0.1:0 and read SDK events. */
import type { RequestListener } from "node:http";
import type { AgentCard, StreamResponse, Task } from "@a2a-js/sdk";
import { serveApp, type ServedApp } from "../../src/a2a/server/serve.js";
import { cardFromToml } from "../../src/a2a/shared/card.js";

/** A minimal card for tests, pointing at `port`. */
export function testCard(port: number, name = "test-agent"): AgentCard {
  return cardFromToml({ name, url: `http://127.0.0.1:${port}/`, version: "0.0.1", skills: [] });
}

/** Serve on an ephemeral loopback port; returns the base URL too. */
export async function serveOnLoopback(
  make: (card: AgentCard, port: number) => RequestListener | Promise<RequestListener>,
): Promise<ServedApp & { url: string }> {
  const served = await serveApp("127.0.0.1", 0, (port) => make(testCard(port), port));
  return Object.assign(served, { url: `http://127.0.0.1:${served.port}/` });
}

/** Collect every event of an SDK stream. */
export async function collect(stream: AsyncGenerator<StreamResponse, void, undefined>): Promise<StreamResponse[]> {
  const out: StreamResponse[] = [];
  for await (const ev of stream) out.push(ev);
  return out;
}

/** The Task of a sendMessage result (throws if the agent answered with a bare message). */
export function asTask(result: unknown): Task {
  const r = result as { $case?: string; value?: unknown; id?: string };
  if (r && typeof r === "object" && "id" in r && "status" in r) return r as unknown as Task;
  if (r.$case === "task") return r.value as Task;
  throw new Error(`not a task: ${JSON.stringify(result).slice(0, 200)}`);
}
