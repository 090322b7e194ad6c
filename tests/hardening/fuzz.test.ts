/**
 * Bounded fuzz of both agents' JSON-RPC endpoint: truncated requests, deep
 * nesting, huge strings, wrong types, 10 MB bodies and random binary. Every
 * answer must be a JSON-RPC error (or HTTP 413 for an oversize body), the
 * server process must survive, and its heap after GC must come back to the
 * baseline (measured inside the agent's own process, run with --expose-gc).
 */
import { afterAll, beforeAll, describe, expect, test } from "vitest";
import { fork, type ChildProcess } from "node:child_process";
import { resolve } from "node:path";

const AGENT = resolve(import.meta.dirname, "..", "fixtures", "hardening", "memory-agent.mjs");
/** Heap growth tolerated after the fuzz, bytes: V8 keeps some compiled code and caches. */
const HEAP_SLACK = 8 * 1024 * 1024;
/** RSS growth tolerated, bytes: freed pages are not always returned to the OS at once. */
const RSS_SLACK = 150 * 1024 * 1024;

interface Agent {
  child: ChildProcess;
  url: string;
  measure(): Promise<NodeJS.MemoryUsage>;
}

async function startAgent(which: "green" | "purple"): Promise<Agent> {
  const child = fork(AGENT, [which], { execArgv: ["--expose-gc"], stdio: ["ignore", "ignore", "pipe", "ipc"] });
  const port = await new Promise<number>((res, rej) => {
    child.once("message", (m) => res((m as { port: number }).port));
    child.once("exit", (code) => rej(new Error(`agent exited ${code}`)));
  });
  const measure = () =>
    new Promise<NodeJS.MemoryUsage>((res) => {
      child.once("message", (m) => res((m as { memory: NodeJS.MemoryUsage }).memory));
      child.send("measure");
    });
  return { child, url: `http://127.0.0.1:${port}/`, measure };
}

/** Deterministic PRNG (mulberry32) so a failure can be replayed. */
function prng(seed: number): () => number {
  let a = seed;
  return () => {
    a = (a + 0x6d2b79f5) | 0;
    let t = Math.imul(a ^ (a >>> 15), 1 | a);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

const VALID = JSON.stringify({
  jsonrpc: "2.0",
  id: 7,
  method: "message/send",
  params: { message: { kind: "message", role: "user", messageId: "m", parts: [{ kind: "text", text: "{}" }] } },
});

/** The malformed bodies: [label, body]. ~300 requests. */
function corpus(rand: () => number): Array<[string, string | Uint8Array]> {
  const out: Array<[string, string | Uint8Array]> = [];
  for (let i = 0; i < 60; i++) out.push(["truncated", VALID.slice(0, 1 + Math.floor(rand() * (VALID.length - 2)))]);
  for (const depth of [100, 1_000, 10_000, 100_000]) {
    out.push(["nested array", "[".repeat(depth) + "]".repeat(depth)]);
    out.push([
      "nested params",
      `{"jsonrpc":"2.0","id":1,"method":"tasks/get","params":${'{"a":'.repeat(depth)}1${"}".repeat(depth)}}`,
    ]);
    out.push([
      "nested part",
      `{"jsonrpc":"2.0","id":1,"method":"message/send","params":{"message":{"kind":"message","role":"user","messageId":"n","parts":[{"kind":"data","data":${'{"a":'.repeat(depth)}1${"}".repeat(depth)}}]}}}`,
    ]);
  }
  const huge = "x".repeat(900_000);
  out.push(["huge method", JSON.stringify({ jsonrpc: "2.0", id: 1, method: huge, params: {} })]);
  out.push(["huge id", JSON.stringify({ jsonrpc: "2.0", id: huge, method: "tasks/get", params: { id: "x" } })]);
  out.push(["huge task id", JSON.stringify({ jsonrpc: "2.0", id: 1, method: "tasks/get", params: { id: huge } })]);
  out.push([
    "huge messageId",
    JSON.stringify({
      jsonrpc: "2.0",
      id: 1,
      method: "message/send",
      params: { message: { kind: "message", role: "user", messageId: huge, parts: [] } },
    }),
  ]);
  const wrong: unknown[] = [
    { jsonrpc: "2.0", id: {}, method: "tasks/get", params: { id: "x" } },
    { jsonrpc: "2.0", id: 1, method: 5, params: {} },
    { jsonrpc: 2, id: 1, method: "tasks/get", params: { id: "x" } },
    { jsonrpc: "2.0", id: 1, method: "tasks/get", params: [] },
    { jsonrpc: "2.0", id: 1, method: "tasks/get", params: "x" },
    { jsonrpc: "2.0", id: 1, method: "tasks/get", params: { id: 5 } },
    { jsonrpc: "2.0", id: 1, method: "tasks/get", params: { id: "x", historyLength: "abc" } },
    { jsonrpc: "2.0", id: 1, method: "tasks/get", params: { id: "x", historyLength: 1e308 } },
    { jsonrpc: "2.0", id: 1, method: "tasks/cancel", params: { id: null } },
    { jsonrpc: "2.0", id: 1, method: "message/send", params: { message: "x" } },
    {
      jsonrpc: "2.0",
      id: 1,
      method: "message/send",
      params: { message: { kind: "message", role: "user", messageId: "w", parts: [{ kind: "text", text: 5 }] } },
    },
    {
      jsonrpc: "2.0",
      id: 1,
      method: "message/send",
      params: { message: { kind: "message", role: "user", messageId: "w", parts: [{ kind: "file", file: {} }] } },
    },
    {
      jsonrpc: "2.0",
      id: 1,
      method: "message/send",
      params: { message: { kind: "message", role: 7, messageId: "w", parts: [{ kind: "text", text: "x" }] } },
    },
    {
      jsonrpc: "2.0",
      id: 1,
      method: "message/send",
      params: { message: { kind: "message", role: "user", messageId: 9, parts: [] } },
    },
    { jsonrpc: "2.0", id: 1, method: "message/stream", params: null },
    { jsonrpc: "2.0", id: 1, method: "tasks/resubscribe", params: {} },
    { jsonrpc: "2.0", id: 1, method: "__proto__", params: {} },
    { jsonrpc: "2.0", id: 1, method: "constructor", params: {} },
    { jsonrpc: "2.0", id: 1, method: "tasks/pushNotificationConfig/set", params: { taskId: "x" } },
    [],
    [{ jsonrpc: "2.0", id: 1, method: "tasks/get", params: { id: "x" } }],
    "just a string",
    null,
    true,
    12,
  ];
  for (const w of wrong) out.push(["wrong types", JSON.stringify(w)]);
  for (let i = 0; i < 60; i++) {
    const bytes = new Uint8Array(1 + Math.floor(rand() * 4096));
    for (let j = 0; j < bytes.length; j++) bytes[j] = Math.floor(rand() * 256);
    out.push(["binary", bytes]);
  }
  for (let i = 0; i < 60; i++) {
    // Flip bytes of a valid request: mostly invalid JSON, sometimes valid with odd values.
    const chars = VALID.split("");
    for (let j = 0; j < 3; j++)
      chars[Math.floor(rand() * chars.length)] = String.fromCharCode(32 + Math.floor(rand() * 95));
    out.push(["mutated", chars.join("")]);
  }
  return out;
}

/**
 * Labels whose requests are valid by the spec despite their shape (a DataPart
 * may hold any JSON object, however deep): a task in the result is the right
 * answer for them, as long as the server stays up.
 */
const VALID_BY_SPEC = new Set(["nested part"]);

/** SSE answers (tasks/resubscribe) carry the JSON-RPC error as their one `data:` event. */
function sseError(text: string): unknown {
  const data = /^data: (.*)$/m.exec(text)?.[1];
  return data ? JSON.parse(data) : text;
}

const TEN_MB = "x".repeat(10 * 1024 * 1024);

async function send(url: string, body: string | Uint8Array): Promise<{ status: number; json: unknown }> {
  const res = await fetch(url, { method: "POST", headers: { "content-type": "application/json" }, body });
  const text = await res.text();
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch {
    json = text.startsWith("event:") || text.startsWith("data:") ? sseError(text) : text;
  }
  return { status: res.status, json };
}

describe.each(["green", "purple"] as const)("%s agent under malformed JSON-RPC", (which) => {
  let agent: Agent;
  beforeAll(async () => {
    agent = await startAgent(which);
  });
  afterAll(async () => {
    const child = agent?.child;
    if (!child || child.exitCode !== null || child.signalCode !== null) return;
    // Disconnecting lets the agent close and remove its results dir; SIGKILL only if it hangs.
    const gone = new Promise((r) => child.once("exit", r));
    child.disconnect();
    const kill = setTimeout(() => child.kill("SIGKILL"), 3000);
    await gone;
    clearTimeout(kill);
  });

  test(
    "every malformed request gets a JSON-RPC error or 413; the process survives; heap returns to baseline",
    { timeout: 120_000 },
    async () => {
      const cases = corpus(prng(6));
      // Warm up the paths (lazy compilation, Ajv, SDK caches) before the baseline.
      for (const [, body] of cases.slice(0, 40)) await send(agent.url, body);
      const before = await agent.measure();

      const failures: string[] = [];
      const tally: Record<string, number> = {};
      const check = (label: string, r: { status: number; json: unknown }) => {
        const code = (r.json as { error?: { code?: unknown } })?.error?.code;
        const result = (r.json as { result?: unknown })?.result;
        const ok =
          r.status === 413 ||
          (r.status < 500 && typeof code === "number" && code < 0) ||
          (VALID_BY_SPEC.has(label) && r.status === 200 && result !== undefined);
        tally[label] = (tally[label] ?? 0) + 1;
        if (!ok) failures.push(`${label}: HTTP ${r.status} ${JSON.stringify(r.json).slice(0, 160)}`);
      };
      // Three passes, 8 requests in flight at a time.
      for (let pass = 0; pass < 3; pass++) {
        for (let i = 0; i < cases.length; i += 8) {
          const batch = cases.slice(i, i + 8);
          const replies = await Promise.all(batch.map(([, body]) => send(agent.url, body)));
          replies.forEach((r, j) => check(batch[j]![0], r));
        }
      }
      for (let i = 0; i < 5; i++) {
        const r = await send(agent.url, `{"jsonrpc":"2.0","id":1,"method":"message/send","params":{"s":"${TEN_MB}"}}`);
        expect(r.status).toBe(413);
        check("10 MB", r);
      }
      expect(failures).toEqual([]);
      expect(agent.child.exitCode).toBeNull();
      // Still serving: an ordinary request gets its ordinary answer.
      expect(
        (
          (
            await send(
              agent.url,
              JSON.stringify({ jsonrpc: "2.0", id: 1, method: "tasks/get", params: { id: "none" } }),
            )
          ).json as { error: { code: number } }
        ).error.code,
      ).toBe(-32001);

      const after = await agent.measure();
      const mb = (n: number) => (n / 1048576).toFixed(1);
      // Printed so a run shows the figures, not just pass/fail.
      console.info(
        `${which}: ${Object.values(tally).reduce((a, b) => a + b, 0)} malformed requests ${JSON.stringify(tally)}; ` +
          `heapUsed ${mb(before.heapUsed)} → ${mb(after.heapUsed)} MB, rss ${mb(before.rss)} → ${mb(after.rss)} MB`,
      );
      expect(after.heapUsed).toBeLessThan(before.heapUsed + HEAP_SLACK);
      expect(after.rss).toBeLessThan(before.rss + RSS_SLACK);
    },
  );
});
