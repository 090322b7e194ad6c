/**
 * Load, bounded and loopback only: 50 assessments submitted at once to a
 * green agent with GREEN_MAX_CONCURRENT_TASKS=2 (quick fixture runner), and
 * 200 concurrent message/send to the purple agent. The larger versions are
 * bench/load-green.mjs and bench/load-purple.mjs.
 */
import { afterEach, expect, test } from "vitest";
import { Writable } from "node:stream";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { setFlagsFromString } from "node:v8";
import { runInNewContext } from "node:vm";
import { createGreenApp, type GreenApp } from "../../src/green/app.js";
import { createPurpleApp } from "../../src/purple/app.js";
import { createSolver } from "../../src/purple/solvers/index.js";
import { createLogger } from "../../src/util/logger.js";
import { validateBundle } from "../../src/bundle/validate.js";
import { serveOnLoopback } from "../a2a/helpers.js";
import { fixtureRunner } from "../green/helpers.js";
import { message, rpc, waitTerminal } from "../conformance/agents.js";

const ASSESSMENTS = 50;
const PURPLE_REQUESTS = 200;

/** Heap used after a full GC, bytes (gc exposed at run time for this measurement only). */
function heapAfterGc(): number {
  setFlagsFromString("--expose-gc");
  const gc = runInNewContext("gc") as () => void;
  gc();
  gc();
  return process.memoryUsage().heapUsed;
}

const cleanups: Array<() => Promise<void> | void> = [];
afterEach(async () => {
  for (const c of cleanups.reverse()) await c();
  cleanups.length = 0;
});

test(
  `${ASSESSMENTS} assessments at once, 2 slots: all finish with valid bundles, FIFO start order, memory bounded`,
  { timeout: 120_000 },
  async () => {
    const resultsRoot = mkdtempSync(join(tmpdir(), "load-green-"));
    const logs: Array<{ msg: string; runId?: string; running?: number }> = [];
    const sink = new Writable({
      write(chunk: Buffer, _enc, cb) {
        for (const line of String(chunk).split("\n").filter(Boolean))
          logs.push(JSON.parse(line) as (typeof logs)[number]);
        cb();
      },
    });
    let green!: GreenApp;
    const served = await serveOnLoopback((card) => {
      green = createGreenApp({
        card,
        runnerCommand: fixtureRunner("events.mjs"),
        logger: createLogger({ component: "green", destination: sink, level: "debug", pretty: false }),
        // All 50 may wait: this test is about FIFO under load (the queue bound has its own test in tests/green).
        settings: { resultsRoot, maxConcurrent: 2, maxQueued: ASSESSMENTS, graceMs: 1_000, heartbeatMs: 60_000 },
        isolation: { backend: "local", level: "bwrap", warnings: [] },
      });
      return green.app;
    });
    cleanups.push(
      () => rmSync(resultsRoot, { recursive: true, force: true }),
      () => served.close(),
      () => green.shutdown(),
    );

    const heapBefore = heapAfterGc();
    const t0 = Date.now();
    const body = (i: number) =>
      JSON.stringify({
        participants: { agent: "http://127.0.0.1:9/" },
        config: { benchmark: "humaneval", run_id: `load-${String(i).padStart(2, "0")}` },
      });
    const sent = await Promise.all(
      Array.from({ length: ASSESSMENTS }, (_, i) =>
        rpc(served.url, "message/send", { message: message(body(i)), configuration: { blocking: false } }),
      ),
    );
    const ids = sent.map((r) => (r.body.result as { id: string }).id);
    expect(ids.every(Boolean)).toBe(true);
    let maxRunning = 0;
    // Runners alive = "starting runner" minus "runner ended" log records, sampled every 10 ms.
    const count = (msg: string) => logs.filter((l) => l.msg === msg).length;
    const poll = setInterval(
      () => (maxRunning = Math.max(maxRunning, count("starting runner") - count("runner ended"))),
      10,
    );
    const tasks = await Promise.all(ids.map((id) => waitTerminal(served.url, id, 110_000)));
    clearInterval(poll);
    const elapsedS = (Date.now() - t0) / 1000;

    for (const task of tasks) {
      expect((task["status"] as { state: string }).state).toBe("completed");
      const art = (
        task["artifacts"] as Array<{ name: string; parts: Array<{ kind: string; data?: Record<string, unknown> }> }>
      ).find((a) => a.name === "evaluation_bundle");
      const bundle = art?.parts.find((p) => p.kind === "data")?.data;
      expect(validateBundle(bundle)).toEqual([]);
      expect(bundle?.["status"]).toBe("ok");
    }
    // Never more than 2 runners at once.
    expect(maxRunning).toBeLessThanOrEqual(2);
    // FIFO: runs start in the order they entered the queue.
    const queued = logs.filter((l) => l.msg === "queued").map((l) => l.runId);
    const started = logs.filter((l) => l.msg === "starting runner").map((l) => l.runId);
    expect(queued).toHaveLength(ASSESSMENTS);
    expect(started).toEqual(queued);

    const heapAfter = heapAfterGc();
    console.info(
      `${ASSESSMENTS} assessments in ${elapsedS.toFixed(1)} s, max ${maxRunning} running; heap ${(heapBefore / 1048576).toFixed(1)} → ${(heapAfter / 1048576).toFixed(1)} MB`,
    );
    // The SDK's in-memory task store keeps every task (with its history): bounded by count, ~0.1 MB each here.
    expect(heapAfter - heapBefore).toBeLessThan(50 * 1024 * 1024);
  },
);

test(`${PURPLE_REQUESTS} concurrent message/send to the purple agent: no error`, { timeout: 60_000 }, async () => {
  const solver = await createSolver("echo", { datasets: [], env: {} });
  const served = await serveOnLoopback((card) => createPurpleApp({ card, solver }));
  cleanups.push(() => served.close());
  const t0 = Date.now();
  const replies = await Promise.all(
    Array.from({ length: PURPLE_REQUESTS }, (_, i) =>
      rpc(served.url, "message/send", { message: message(`def f${i}(): pass`) }),
    ),
  );
  const errors = replies.filter(
    (r) =>
      r.status !== 200 || r.body.error || (r.body.result as { status: { state: string } }).status.state !== "completed",
  );
  expect(errors.map((r) => JSON.stringify(r.body).slice(0, 200))).toEqual([]);
  // Each answer is its own request's echo (no cross-talk between concurrent tasks).
  replies.forEach((r, i) => expect(JSON.stringify(r.body.result)).toContain(`def f${i}(): pass`));
  console.info(`${PURPLE_REQUESTS} concurrent message/send in ${Date.now() - t0} ms`);
});
