/**
 * CPU per request of the runner's participant client (createA2AParticipant from dist: the SDK client, its
 * JSON-RPC encoding, the capped reply, the reply's reading) against a bare `fetch` POST of the same request bytes
 * to the same agent with `res.json()` of its reply. The request bytes are captured from the client's own first
 * request. Both sides run in this process, one request at a time, alternating blocks of `block` requests; the
 * figure is this process's CPU (process.cpuUsage, user + system) over the block divided by its requests, so the
 * agent's own CPU (another process) is not in it.
 */
import { join } from "node:path";
import { DIST } from "./paths.mjs";

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
  const participant = createA2AParticipant({ url, timeoutMs: 30_000, logger: silentLogger() });
  const signal = new AbortController().signal;
  let captured = null;
  const realFetch = globalThis.fetch;
  globalThis.fetch = async (input, init) => {
    if (captured === null && init?.method === "POST")
      captured = { url: String(input instanceof Request ? input.url : input), body: init.body, headers: init.headers };
    return realFetch(input, init);
  };
  try {
    await participant.check?.(signal);
    await participant.ask(buildRequest(problems[0], "humaneval-full"), signal);
  } finally {
    globalThis.fetch = realFetch;
  }
  if (!captured) throw new Error("client-cpu: the client's request was not seen");
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
