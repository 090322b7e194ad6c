/**
 * CPU per request of the runner's participant client (createA2AParticipant from dist: the SDK client, its
 * JSON-RPC encoding, the capped reply, the reply's reading) against a bare `fetch` POST of the same request bytes
 * to the same agent with `res.json()` of its reply. The request bytes are captured from the client's own first
 * request (a relay in this process passes it on and keeps it: request-capture.mjs). Both sides run in this process, one request at a time, alternating blocks of `block` requests; the
 * figure is this process's CPU (process.cpuUsage, user + system) over the block divided by its requests, so the
 * agent's own CPU (another process) is not in it.
 */
import { join } from "node:path";
import { DIST } from "./paths.mjs";
import { captureRelay } from "./request-capture.mjs";

const { createA2AParticipant } = await import(join(DIST, "a2a/client/participant-client.js"));
const { silentLogger } = await import(join(DIST, "util/logger.js"));
const { buildRequest } = await import(join(DIST, "benchmarks/humaneval/request.js"));

const cpuUs = (fn) => async () => {
  const c0 = process.cpuUsage();
  await fn();
  const c = process.cpuUsage(c0);
  return c.user + c.system;
};

/** @returns {{clientUs: number, bareUs: number, requests: number}} medians of µs CPU per request */
export async function clientCpuPerRequest(url, problems, { blocks = 5, block = 40 } = {}) {
  // The client's own request bytes, seen by a relay on their way to the agent.
  const relay = await captureRelay(url);
  const probe = createA2AParticipant({ url: relay.url, timeoutMs: 30_000, logger: silentLogger() });
  const signal = new AbortController().signal;
  try {
    await probe.check?.(signal);
    await probe.ask(buildRequest(problems[0], "humaneval-full"), signal);
  } finally {
    await probe.close();
    await relay.close();
  }
  const first = relay.first();
  if (!first) throw new Error("client-cpu: the client's request was not seen");
  const captured = { url: new URL(first.path, url).href, body: first.body, headers: first.headers };
  const realFetch = globalThis.fetch;
  const participant = createA2AParticipant({ url, timeoutMs: 30_000, logger: silentLogger() });
  await participant.check?.(signal);
  const req = buildRequest(problems[0], "humaneval-full");
  const client = cpuUs(async () => {
    for (let i = 0; i < block; i++) {
      const r = await participant.ask(req, signal);
      if (r.state !== "completed") throw new Error(`client-cpu: ${r.state}`);
    }
  });
  const bare = cpuUs(async () => {
    for (let i = 0; i < block; i++) {
      const res = await realFetch(captured.url, { method: "POST", headers: captured.headers, body: captured.body });
      const j = await res.json();
      if (!j.result) throw new Error("client-cpu: bare fetch got no result");
    }
  });
  const cs = [];
  const bs = [];
  try {
    await client();
    await bare(); // warm-up block each
    for (let i = 0; i < blocks; i++) {
      const [first, second] = i % 2 === 0 ? [client, bare] : [bare, client];
      const a = await first();
      const b = await second();
      (first === client ? cs : bs).push(a / block);
      (first === client ? bs : cs).push(b / block);
    }
  } finally {
    await participant.close();
  }
  const med = (a) => [...a].sort((x, y) => x - y)[Math.floor(a.length / 2)];
  return { clientUs: med(cs), bareUs: med(bs), requests: blocks * block };
}
