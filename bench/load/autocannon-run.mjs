#!/usr/bin/env node
/**
 * The load generator, in its own process: one autocannon run against one URL,
 * printed as one JSON line on stdout. The bench spawns this per run so that the
 * client never shares an event loop with the bench or with the server measured
 * (a client that saturates first would hide a slow server).
 *
 * Usage: node bench/load/autocannon-run.mjs '<json spec>'
 *   spec: { url, method?, body?, connections, durationS, expect? }
 *   expect: a substring every checked answer must contain (one request is checked
 *   before the run; autocannon itself does not read bodies).
 * Prints: { rps, p50, p99, requests, errors, non2xx, timeouts } (latency in ms,
 * exact: taken from each response's own duration, not autocannon's integer-ms histogram).
 */
import autocannon from "autocannon";

const spec = JSON.parse(process.argv[2] ?? "{}");
const method = spec.method ?? "GET";
const headers = spec.body ? { "content-type": "application/json" } : {};

/** One request whose answer must be 200 and hold `spec.expect` (before and after the run: the same body every time). */
async function check(when) {
  const send = () => fetch(spec.url, { method, headers, ...(spec.body ? { body: spec.body } : {}) });
  // A connection the server closed before answering is tried once more (said on stderr): on a crowded
  // machine the fresh connection right after autocannon's 64 close can be refused; an answer that is
  // wrong is never retried.
  const r = await send().catch((err) => {
    process.stderr.write(`check ${when} the run: ${err.cause?.message ?? err.message}; trying once more\n`);
    return send();
  });
  const text = await r.text();
  if (r.status !== 200 || (spec.expect && !text.includes(spec.expect))) {
    process.stderr.write(
      `unexpected answer ${when} the run from ${spec.url}: HTTP ${r.status} ${text.slice(0, 300)}\n`,
    );
    process.exit(3);
  }
}
await check("before");

// Exact per-request latency (ms, float) from autocannon's own response event.
let lat = new Float64Array(1 << 16);
let n = 0;
const instance = autocannon({
  url: spec.url,
  method,
  headers,
  ...(spec.body ? { body: spec.body } : {}),
  connections: spec.connections,
  duration: spec.durationS,
  timeout: 10,
});
instance.on("response", (_client, statusCode, _bytes, ms) => {
  if (statusCode !== 200) return;
  if (n === lat.length) {
    const bigger = new Float64Array(lat.length * 2);
    bigger.set(lat);
    lat = bigger;
  }
  lat[n++] = ms;
});
const result = await instance;
await check("after");
const sorted = lat.subarray(0, n).sort();
const q = (p) => (n === 0 ? NaN : sorted[Math.min(n - 1, Math.floor(p * (n - 1) + 0.5))]);
process.stdout.write(
  `${JSON.stringify({
    rps: result.requests.total / result.duration,
    p50: q(0.5),
    p99: q(0.99),
    requests: result.requests.total,
    errors: result.errors,
    non2xx: result.non2xx,
    timeouts: result.timeouts,
  })}\n`,
);
