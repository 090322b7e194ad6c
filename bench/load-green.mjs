#!/usr/bin/env node
// Larger, bounded load on the green agent (loopback only): N assessments at
// once against GREEN_MAX_CONCURRENT_TASKS slots, with the quick fixture runner.
// Usage: npm run build && node bench/load-green.mjs [--assessments 500] [--slots 2]
// Prints one JSON line: counts, wall time, FIFO check, heap/RSS before/after.
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { Writable } from "node:stream";
import { parseArgs } from "node:util";
import { setFlagsFromString } from "node:v8";
import { runInNewContext } from "node:vm";

const root = resolve(import.meta.dirname, "..");
const { serveApp } = await import(join(root, "dist/a2a/server/serve.js"));
const { cardFromToml } = await import(join(root, "dist/a2a/shared/card.js"));
const { createGreenApp } = await import(join(root, "dist/green/app.js"));
const { builtinRunnerCommand } = await import(join(root, "dist/green/runner-command.js"));
const { createLogger } = await import(join(root, "dist/util/logger.js"));
const { validateBundle } = await import(join(root, "dist/bundle/validate.js"));

const { values } = parseArgs({
  options: { assessments: { type: "string", default: "500" }, slots: { type: "string", default: "2" } },
  strict: true,
});
const N = Math.min(Number(values.assessments), 5000); // bounded
const slots = Number(values.slots);
setFlagsFromString("--expose-gc");
const gc = runInNewContext("gc");
const mem = () => (gc(), gc(), process.memoryUsage());

const logs = [];
const sink = new Writable({
  write(c, _e, cb) {
    for (const l of String(c).split("\n").filter(Boolean)) {
      const r = JSON.parse(l);
      if (r.msg === "queued" || r.msg === "starting runner") logs.push(r);
    }
    cb();
  },
});
const resultsRoot = mkdtempSync(join(tmpdir(), "bench-load-green-"));
let green;
const served = await serveApp("127.0.0.1", 0, (port) => {
  green = createGreenApp({
    card: cardFromToml({ name: "load", url: `http://127.0.0.1:${port}/`, version: "0.0.1", skills: [] }),
    runnerCommand: builtinRunnerCommand(join(root, "tests/fixtures/runners/events.mjs")),
    logger: createLogger({ component: "green", destination: sink, level: "debug", pretty: false }),
    // Every assessment of the burst may wait (the default queue bound would refuse the rest with -32000).
    settings: { resultsRoot, maxConcurrent: slots, maxQueued: 100_000, heartbeatMs: 600_000 },
  });
  return green.app;
});
const url = `http://127.0.0.1:${served.port}/`;
const rpc = async (method, params) =>
  (
    await fetch(url, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ jsonrpc: "2.0", id: 1, method, params }),
    })
  ).json();
const before = mem();
const t0 = Date.now();
const sent = await Promise.all(
  Array.from({ length: N }, (_, i) =>
    rpc("message/send", {
      configuration: { blocking: false },
      message: {
        kind: "message",
        role: "user",
        messageId: `m${i}`,
        parts: [
          {
            kind: "text",
            text: JSON.stringify({
              participants: { agent: "http://127.0.0.1:9/" },
              config: { benchmark: "humaneval", run_id: `bench-${i}` },
            }),
          },
        ],
      },
    }),
  ),
);
let completed = 0,
  invalid = 0,
  other = 0;
await Promise.all(
  sent.map(async (r) => {
    for (;;) {
      const t = (await rpc("tasks/get", { id: r.result.id })).result;
      if (["completed", "failed", "canceled", "rejected"].includes(t.status.state)) {
        if (t.status.state !== "completed") other++;
        else {
          completed++;
          const b = t.artifacts.find((a) => a.name === "evaluation_bundle")?.parts.find((p) => p.kind === "data")?.data;
          if (validateBundle(b).length > 0) invalid++;
        }
        return;
      }
      await new Promise((res) => setTimeout(res, 200));
    }
  }),
);
const wall = (Date.now() - t0) / 1000;
const queued = logs.filter((l) => l.msg === "queued").map((l) => l.runId);
const started = logs.filter((l) => l.msg === "starting runner").map((l) => l.runId);
const after = mem();
await green.shutdown();
await served.close();
rmSync(resultsRoot, { recursive: true, force: true });
const mb = (n) => +(n / 1048576).toFixed(1);
process.stdout.write(
  JSON.stringify({
    assessments: N,
    slots,
    completed,
    invalid_bundles: invalid,
    not_completed: other,
    wall_seconds: wall,
    fifo: JSON.stringify(queued) === JSON.stringify(started),
    heap_mb: [mb(before.heapUsed), mb(after.heapUsed)],
    rss_mb: [mb(before.rss), mb(after.rss)],
  }) + "\n",
);
process.exit(completed === N && invalid === 0 ? 0 : 1);
