#!/usr/bin/env node
// Larger, bounded load on the purple agent (loopback only): R rounds of C
// concurrent message/send (echo solver). Usage:
//   npm run build && node bench/load-purple.mjs [--concurrent 1000] [--rounds 5]
// Prints one JSON line: requests, errors, wall time, p50/p99 latency, RSS.
import { join, resolve } from "node:path";
import { parseArgs } from "node:util";

const root = resolve(import.meta.dirname, "..");
const { serveApp } = await import(join(root, "dist/a2a/server/serve.js"));
const { cardFromToml } = await import(join(root, "dist/a2a/shared/card.js"));
const { createPurpleApp } = await import(join(root, "dist/purple/app.js"));
const { createSolver } = await import(join(root, "dist/purple/solvers/index.js"));

const { values } = parseArgs({
  options: { concurrent: { type: "string", default: "1000" }, rounds: { type: "string", default: "5" } },
  strict: true,
});
const C = Math.min(Number(values.concurrent), 5000); // bounded
const R = Math.min(Number(values.rounds), 50);
const solver = await createSolver("echo", { datasets: [], env: {} });
const served = await serveApp("127.0.0.1", 0, (port) =>
  createPurpleApp({
    card: cardFromToml({ name: "load", url: `http://127.0.0.1:${port}/`, version: "0.0.1", skills: [] }),
    solver,
  }),
);
const url = `http://127.0.0.1:${served.port}/`;
const lat = [];
let errors = 0;
const t0 = Date.now();
for (let r = 0; r < R; r++) {
  await Promise.all(
    Array.from({ length: C }, async (_, i) => {
      const s = performance.now();
      try {
        const res = await fetch(url, {
          method: "POST",
          headers: { "content-type": "application/json" },
          body: JSON.stringify({
            jsonrpc: "2.0",
            id: i,
            method: "message/send",
            params: {
              message: {
                kind: "message",
                role: "user",
                messageId: `m${r}-${i}`,
                parts: [{ kind: "text", text: `def f${i}(): pass` }],
              },
            },
          }),
        });
        const body = await res.json();
        if (res.status !== 200 || body.error || body.result?.status?.state !== "completed") errors++;
      } catch {
        errors++;
      }
      lat.push(performance.now() - s);
    }),
  );
}
const wall = (Date.now() - t0) / 1000;
lat.sort((a, b) => a - b);
const pct = (p) => +lat[Math.min(lat.length - 1, Math.floor(p * lat.length))].toFixed(1);
await served.close();
process.stdout.write(
  JSON.stringify({
    requests: C * R,
    concurrent: C,
    errors,
    wall_seconds: wall,
    p50_ms: pct(0.5),
    p99_ms: pct(0.99),
    rss_mb: +(process.memoryUsage().rss / 1048576).toFixed(1),
  }) + "\n",
);
process.exit(errors === 0 ? 0 : 1);
