/**
 * Two bounds on a run's work: items in flight (participant requests, for
 * benchmarks that mostly wait on the participant) and sandbox calls in flight
 * (`concurrency`). Shown through whole runs against a slow A2A stand-in
 * participant on loopback, with a sandbox that records its concurrency.
 */
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { readCheckpoint } from "../../src/runner/checkpoint.js";
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { createPurpleApp } from "../../src/purple/app.js";
import type { Solver } from "../../src/purple/solver.js";
import type { ServedApp } from "../../src/a2a/server/serve.js";
import { createA2AParticipant } from "../../src/a2a/client/participant-client.js";
import { executeRun } from "../../src/runner/run-benchmark.js";
import { gateSandbox, planLanes } from "../../src/runner/lanes.js";
import { PARTICIPANT_LANES_PER_SLOT } from "../../src/request-config/resolve.js";
import type { BenchmarkDefinition, InFlightBound, ItemResult } from "../../src/runner/benchmark.js";
import type { RunOptions } from "../../src/runner/options.js";
import { testRunOptions } from "../support/run-options.js";
import type { RunnerEvent } from "../../src/runner/protocol.js";
import type { ExecOutcome, Sandbox } from "../../src/sandbox/types.js";
import type { SandboxCapability } from "../../src/sandbox/capabilities.js";
import { silentLogger } from "../../src/util/logger.js";
import { serveOnLoopback } from "../a2a/helpers.js";

const ok: ExecOutcome = {
  exitCode: 0,
  signal: null,
  timedOut: false,
  isCanceled: false,
  outputLimitExceeded: false,
  durationMs: 1,
  stdoutTail: "",
  stderrTail: "",
};

/** Counts answers in progress at once; each answer takes `ANSWER_MS`. */
const ANSWER_MS = 150;
const purple = { active: 0, max: 0, answered: 0 };
const solver: Solver = {
  mode: "probe",
  async solve(input) {
    purple.active++;
    purple.max = Math.max(purple.max, purple.active);
    await new Promise((r) => setTimeout(r, ANSWER_MS));
    purple.active--;
    purple.answered++;
    return { text: `answer ${input.text}` };
  },
};

/** A sandbox whose calls take `ms` and that records how many ran at once (and is not itself bounded). */
function countingSandbox(ms: number): Sandbox & { max: number; calls: number; closed: boolean } {
  let active = 0;
  const sb = {
    backend: "e2b" as const,
    isolation: "none" as const,
    warnings: [],
    capabilities: new Set<SandboxCapability>(),
    max: 0,
    calls: 0,
    closed: false,
    async exec() {
      return (await sb.execMany([]))[0] ?? ok;
    },
    async execMany(reqs: unknown[]) {
      active++;
      sb.calls++;
      sb.max = Math.max(sb.max, active);
      await new Promise((r) => setTimeout(r, ms));
      active--;
      return reqs.map(() => ok);
    },
    async close() {
      sb.closed = true;
    },
  };
  return sb;
}

interface Item {
  id: string;
}

/** Ask the participant, then one sandbox call: the shape of a HumanEval item. */
function askThenScore(count: number, inFlight: InFlightBound | undefined): BenchmarkDefinition<Item> {
  return {
    name: "ask-then-score",
    ...(inFlight ? { inFlight } : {}),
    async loadItems() {
      return Array.from({ length: count }, (_, i) => ({ id: `q/${i}` }));
    },
    needsParticipant: () => true,
    async evaluate(item, ctx): Promise<ItemResult> {
      try {
        const reply = await ctx.participant!.ask({ text: item.id }, ctx.signal);
        const [out] = await ctx.sandbox.execMany(
          [{ language: "python", code: reply.text, timeoutMs: 1000 }],
          ctx.signal,
        );
        if (ctx.signal.aborted || out?.isCanceled)
          return { id: item.id, status: "canceled", passed: false, elapsed_seconds: 0 };
        return { id: item.id, status: "passed", passed: reply.text === `answer ${item.id}`, elapsed_seconds: 0.01 };
      } catch {
        return { id: item.id, status: "canceled", passed: false, elapsed_seconds: 0 };
      }
    },
    aggregate(rows) {
      return { accuracy: rows.filter((r) => r.passed).length / rows.length, total: rows.length, failure_modes: {} };
    },
  };
}

let agent: ServedApp & { url: string };
let dir: string;
beforeAll(async () => {
  agent = await serveOnLoopback((card) => createPurpleApp({ card, solver }));
});
afterAll(async () => {
  await agent.close();
});
beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), "lanes-"));
  Object.assign(purple, { active: 0, max: 0, answered: 0 });
});
afterEach(async () => {
  await rm(dir, { recursive: true, force: true });
});

const opts = (over: Partial<RunOptions> = {}): RunOptions =>
  testRunOptions({
    benchmark: "humaneval",
    run_id: "r1",
    out: dir,
    seed: 0,
    n: 1,
    k: [1],
    concurrency: 2,
    agent: agent.url,
    ...over,
  });
const deps = (
  sandbox: Sandbox,
  events: RunnerEvent[] = [],
  signal?: AbortSignal,
  onEvent?: (e: RunnerEvent) => void,
) => ({
  logger: silentLogger(),
  createSandbox: () => sandbox,
  createParticipant: (o: RunOptions & { agent: string }) =>
    createA2AParticipant({ url: o.agent, timeoutMs: 10_000, logger: silentLogger() }),
  progress: {
    onEvent: (e: RunnerEvent) => {
      events.push(e);
      onEvent?.(e);
    },
    close() {},
  },
  ...(signal ? { signal } : {}),
});

describe("planLanes / gateSandbox", () => {
  const def = (inFlight?: InFlightBound) => askThenScore(1, inFlight) as unknown as BenchmarkDefinition;

  it("gives participant-bound benchmarks participant_concurrency lanes and gates the sandbox at concurrency", () => {
    expect(planLanes(def("participant"), opts({ concurrency: 2, participant_concurrency: 6 }), true)).toEqual({
      items: 6,
      sandboxCalls: 2,
    });
    // participant_concurrency resolved from concurrency (request-config/resolve.ts): 4 lanes per slot.
    expect(planLanes(def("participant"), opts({ concurrency: 3 }), true).items).toBe(3 * PARTICIPANT_LANES_PER_SLOT);
    // No gate needed when the lanes do not exceed the sandbox slots.
    expect(planLanes(def("participant"), opts({ concurrency: 4, participant_concurrency: 2 }), true)).toEqual({
      items: 2,
      sandboxCalls: null,
    });
  });

  it("keeps concurrency lanes for benchmarks that hold per-item resources or ask no participant", () => {
    expect(planLanes(def(), opts({ concurrency: 2, participant_concurrency: 8 }), true)).toEqual({
      items: 2,
      sandboxCalls: null,
    });
    expect(planLanes(def("sandbox"), opts({ concurrency: 2, participant_concurrency: 8 }), true)).toEqual({
      items: 2,
      sandboxCalls: null,
    });
    expect(planLanes(def("participant"), opts({ concurrency: 2, participant_concurrency: 8 }), false)).toEqual({
      items: 2,
      sandboxCalls: null,
    });
    // An interactive item holds its environment for its whole episode.
    expect(
      planLanes(
        def("participant"),
        opts({ concurrency: 2, participant_concurrency: 8, interaction: "interactive" }),
        true,
      ),
    ).toEqual({ items: 2, sandboxCalls: null });
  });

  it("gateSandbox lets at most `limit` calls run, in FIFO order, and passes results through", async () => {
    const inner = countingSandbox(15);
    const gated = gateSandbox(inner, 2);
    const outs = await Promise.all(
      Array.from({ length: 7 }, () => gated.execMany([{ language: "python", code: "", timeoutMs: 1 }])),
    );
    expect(outs.every((o) => o.length === 1 && o[0]?.exitCode === 0)).toBe(true);
    expect(inner.calls).toBe(7);
    expect(inner.max).toBe(2);
    expect(gated.isolation).toBe(inner.isolation);
  });

  it("gateSandbox passes warmUp's argument and hasPythonModule through to the backend", () => {
    const given: unknown[] = [];
    const inner: Sandbox = {
      ...countingSandbox(1),
      warmUp: (prep) => void given.push(prep),
      hasPythonModule: (name) => name === "_m",
    };
    const gated = gateSandbox(inner, 1);
    gated.warmUp!({ pythonModules: { _m: "" } });
    expect(given).toEqual([{ pythonModules: { _m: "" } }]);
    expect(gated.hasPythonModule!("_m")).toBe(true);
    expect(gated.hasPythonModule!("other")).toBe(false);
    expect(gateSandbox(countingSandbox(1), 1).hasPythonModule!("_m")).toBe(false);
  });

  it("gateSandbox keeps the backend's capabilities and its environments (a benchmark asking for them is not refused)", async () => {
    const plain = gateSandbox(countingSandbox(1), 2);
    expect(plain.capabilities.size).toBe(0);
    expect("openEnvironment" in plain).toBe(false);
    const opened: string[] = [];
    const inner: Sandbox = {
      ...countingSandbox(1),
      capabilities: new Set<SandboxCapability>(["environments"]),
      openEnvironment: async (spec) => {
        opened.push(spec.image ?? "");
        throw new Error("no engine here");
      },
    };
    const gated = gateSandbox(inner, 1);
    expect([...gated.capabilities]).toEqual(["environments"]);
    await expect(gated.openEnvironment!({ image: "img", owner: "o" })).rejects.toThrow("no engine here");
    expect(opened).toEqual(["img"]);
  });
});

describe("executeRun with participant lanes (slow A2A stand-in)", () => {
  it("overlaps participant requests up to participant_concurrency while sandbox calls stay at concurrency", async () => {
    const sandbox = countingSandbox(10);
    const events: RunnerEvent[] = [];
    const out = await executeRun(
      askThenScore(18, "participant"),
      opts({ concurrency: 2, participant_concurrency: 6 }),
      deps(sandbox, events),
    );
    expect(out.exitCode).toBe(0);
    expect(purple.answered).toBe(18);
    expect(purple.max).toBe(6); // answers take 150 ms: the 6 lanes' first requests are all in progress together
    expect(sandbox.max).toBe(2);
    expect(sandbox.calls).toBe(18);
    const rows = out.results?.["rows"] as ItemResult[];
    expect(rows.map((r) => r.id)).toEqual(Array.from({ length: 18 }, (_, i) => `q/${i}`)); // dataset order
    expect(rows.every((r) => r.passed)).toBe(true);
    for (const name of ["task_started", "task_finished", "checkpoint_written"]) {
      expect(events.filter((e) => e.event === name)).toHaveLength(18);
    }
    expect(events.at(-1)?.event).toBe("run_finished");
    const ck = await readCheckpoint(join(dir, "checkpoint.jsonl"));
    expect(ck.rows).toHaveLength(18);
  });

  it("a benchmark without inFlight keeps one request per sandbox slot", async () => {
    const sandbox = countingSandbox(5);
    await executeRun(askThenScore(6, undefined), opts({ concurrency: 2, participant_concurrency: 6 }), deps(sandbox));
    expect(purple.answered).toBe(6);
    expect(purple.max).toBe(2);
  });

  it("a stop with many items in flight keeps every finished row in the checkpoint; resume does the rest", async () => {
    const controller = new AbortController();
    const events: RunnerEvent[] = [];
    const sandbox = countingSandbox(5);
    const stopAt7 = (e: RunnerEvent): void => {
      if (e.event === "task_finished" && e.done === 7) controller.abort();
    };
    const out = await executeRun(
      askThenScore(40, "participant"),
      opts({ participant_concurrency: 8 }),
      deps(sandbox, events, controller.signal, stopAt7),
    );
    expect(out).toMatchObject({ exitCode: 143, interrupted: true });
    expect(sandbox.closed).toBe(true);
    const finished = events.filter((e) => e.event === "task_finished").map((e) => (e as { task_id: string }).task_id);
    expect(finished.length).toBeGreaterThanOrEqual(7);
    expect(finished.length).toBeLessThan(40);
    const ck = await readCheckpoint(join(dir, "checkpoint.jsonl"));
    expect(ck.rows.map((r) => r.id).sort()).toEqual([...finished].sort());

    const again: RunnerEvent[] = [];
    const done = await executeRun(
      askThenScore(40, "participant"),
      opts({ participant_concurrency: 8, resume: true }),
      deps(countingSandbox(1), again),
    );
    expect(done.exitCode).toBe(0);
    const started = again.filter((e) => e.event === "task_started").map((e) => (e as { task_id: string }).task_id);
    expect(started.sort()).toEqual(
      Array.from({ length: 40 }, (_, i) => `q/${i}`)
        .filter((id) => !finished.includes(id))
        .sort(),
    );
    expect((done.results?.["rows"] as ItemResult[]).map((r) => r.id)).toEqual(
      Array.from({ length: 40 }, (_, i) => `q/${i}`),
    );
  });
});
