/**
 * Unit tests of the generic runner with a FAKE sandbox and a fake benchmark
 * (framework behaviour only: selection, resume, checkpoint, events, stop).
 * HumanEval scoring runs in the real sandbox in tests/benchmarks/humaneval.
 */
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { readCheckpoint } from "../../src/runner/checkpoint.js";
import { mkdtemp, readFile, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { executeRun } from "../../src/runner/run-benchmark.js";
import type { BenchmarkDefinition, ItemResult } from "../../src/runner/benchmark.js";
import type { RunOptions } from "../../src/runner/options.js";
import { testRunOptions } from "../support/run-options.js";
import type { Sandbox, ExecOutcome } from "../../src/sandbox/types.js";
import type { RunnerEvent } from "../../src/runner/protocol.js";
import { silentLogger } from "../../src/util/logger.js";
import { checkAgainst } from "../../src/util/schema.js";

/** Fake sandbox: records calls, runs nothing. */
function fakeSandbox(): Sandbox & { closed: boolean } {
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
  return {
    backend: "local",
    isolation: "none",
    warnings: ["fake sandbox: nothing is isolated"],
    capabilities: new Set(),
    closed: false,
    async exec() {
      return ok;
    },
    async execMany(reqs) {
      return reqs.map(() => ok);
    },
    async close() {
      this.closed = true;
    },
  };
}

interface Item {
  id: string;
  good: boolean;
}

function fakeBenchmark(count: number, evaluated: string[], delayMs = 0): BenchmarkDefinition<Item> {
  return {
    name: "fake",
    async loadItems() {
      return Array.from({ length: count }, (_, i) => ({ id: `t/${i}`, good: i % 3 !== 0 }));
    },
    needsParticipant: () => false,
    async evaluate(item, ctx): Promise<ItemResult> {
      evaluated.push(item.id);
      if (delayMs) {
        await new Promise<void>((resolve) => {
          const t = setTimeout(resolve, delayMs);
          ctx.signal.addEventListener(
            "abort",
            () => {
              clearTimeout(t);
              resolve();
            },
            { once: true },
          );
        });
      }
      if (ctx.signal.aborted) return { id: item.id, status: "canceled", passed: false, elapsed_seconds: 0 };
      return item.good
        ? { id: item.id, status: "passed", passed: true, elapsed_seconds: 0.01 }
        : { id: item.id, status: "failed", passed: false, elapsed_seconds: 0.01, failure_mode: "model_wrong_answer" };
    },
    aggregate(rows) {
      return { accuracy: rows.filter((r) => r.passed).length / rows.length, total: rows.length, failure_modes: {} };
    },
  };
}

let dir: string;
beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), "runner-"));
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
    ...over,
  });

describe("executeRun (fake sandbox)", () => {
  it("writes results, events and run_metadata; results match the schema; events in order", async () => {
    const events: RunnerEvent[] = [];
    const sandbox = fakeSandbox();
    const evaluated: string[] = [];
    const out = await executeRun(fakeBenchmark(6, evaluated), opts(), {
      logger: silentLogger(),
      createSandbox: () => sandbox,
      progress: { onEvent: (e) => events.push(e), close() {} },
    });
    expect(out.exitCode).toBe(0);
    expect(sandbox.closed).toBe(true);
    const results = JSON.parse(await readFile(join(dir, "results.json"), "utf8")) as {
      rows: ItemResult[];
      aggregate: Record<string, unknown>;
      isolation: unknown;
    };
    expect(checkAgainst("results.schema.json", results)).toEqual([]);
    expect(results.rows.map((r) => r.id)).toEqual(["t/0", "t/1", "t/2", "t/3", "t/4", "t/5"]);
    expect(results.aggregate["accuracy"]).toBeCloseTo(4 / 6);
    expect(results.isolation).toEqual({
      backend: "local",
      level: "none",
      warnings: ["fake sandbox: nothing is isolated"],
    });
    const names = events.map((e) => e.event);
    expect(names[0]).toBe("run_started");
    expect(names.at(-1)).toBe("run_finished");
    expect(names.filter((n) => n === "task_finished")).toHaveLength(6);
    expect(names.filter((n) => n === "checkpoint_written")).toHaveLength(6);
    const finished = events.filter((e) => e.event === "task_finished");
    expect(finished.at(-1)).toMatchObject({ done: 6, total: 6, passed_so_far: 4 });
    const lines = (await readFile(join(dir, "events.jsonl"), "utf8")).trim().split("\n");
    expect(lines).toHaveLength(events.length);
    const meta = JSON.parse(await readFile(join(dir, "run_metadata.json"), "utf8")) as Record<string, unknown>;
    expect(meta).toMatchObject({
      run_id: "r1",
      benchmark: "fake",
      items: { in_dataset: 6, selected: 6, resumed: 0, evaluated: 6 },
    });
    expect((meta["dataset"] as { sha256: string }).sha256).toMatch(/^[0-9a-f]{64}$/);
  });

  it("warms the sandbox up at run start only for a benchmark that asks for it, and not when nothing is left to run", async () => {
    const warmed = async (warmSandbox: boolean | undefined, over: Partial<RunOptions> = {}): Promise<number> => {
      let calls = 0;
      const sandbox = {
        ...fakeSandbox(),
        warmUp: () => {
          calls++;
        },
      };
      const def = { ...fakeBenchmark(3, []), ...(warmSandbox === undefined ? {} : { warmSandbox }) };
      await executeRun(def, opts(over), {
        logger: silentLogger(),
        createSandbox: () => sandbox,
      });
      return calls;
    };
    expect(await warmed(false)).toBe(0);
    expect(await warmed(undefined)).toBe(0);
    expect(await warmed(true)).toBe(1);
    expect(await warmed(true, { resume: true })).toBe(0); // every item is in the checkpoint already
  });

  it("gives the sandbox's warmUp what the benchmark's jobs share (modules, standard library only)", async () => {
    const given: unknown[] = [];
    const sandbox = { ...fakeSandbox(), warmUp: (prep?: unknown) => void given.push(prep) };
    const prep = { pythonModules: { _m: "x = 1\n" }, pythonStdlibOnly: true };
    await executeRun({ ...fakeBenchmark(2, []), warmSandbox: prep }, opts(), {
      logger: silentLogger(),
      createSandbox: () => sandbox,
    });
    await executeRun({ ...fakeBenchmark(2, []), warmSandbox: true }, opts({ out: join(dir, "second") }), {
      logger: silentLogger(),
      createSandbox: () => sandbox,
    });
    expect(given).toEqual([prep, undefined]);
  });

  it("ends the run with the benchmark's endRun after every evaluate and before the sandbox closes, also when cancelled", async () => {
    for (const cancel of [false, true]) {
      const log: string[] = [];
      const controller = new AbortController();
      const sandbox = {
        ...fakeSandbox(),
        close: async () => {
          log.push("sandbox closed");
        },
      };
      const base = fakeBenchmark(4, [], 30);
      const def: BenchmarkDefinition<Item> = {
        ...base,
        async evaluate(item, ctx) {
          log.push(`start ${item.id}`);
          if (cancel && item.id === "t/1") controller.abort();
          const row = await base.evaluate(item, ctx);
          log.push(`end ${item.id}`);
          return row;
        },
        async endRun(ctx) {
          log.push(`endRun ${ctx.workDir === join(dir, "work")}`);
        },
      };
      const out = await executeRun(def, opts({ run_id: `e${cancel}` }), {
        logger: silentLogger(),
        createSandbox: () => sandbox,
        signal: controller.signal,
      });
      expect(out.interrupted).toBe(cancel);
      expect(log.filter((l) => l.startsWith("endRun"))).toEqual(["endRun true"]);
      const at = log.indexOf("endRun true");
      // Every evaluate that started has ended before endRun; the sandbox closes after it.
      expect(log.slice(at + 1)).toEqual(["sandbox closed"]);
      expect(log.filter((l) => l.startsWith("start")).length).toBe(log.filter((l) => l.startsWith("end t/")).length);
    }
  });

  it("samples and shards before evaluating", async () => {
    const evaluated: string[] = [];
    await executeRun(fakeBenchmark(40, evaluated), opts({ samples: 10, shard_index: 1, num_shards: 3 }), {
      logger: silentLogger(),
      createSandbox: () => fakeSandbox(),
    });
    expect(evaluated).toHaveLength(3); // 10 sampled, round-robin positions 1, 4, 7
  });

  it("resumes: skips finished items, refuses other settings and a tampered checkpoint", async () => {
    const first: string[] = [];
    await executeRun(fakeBenchmark(5, first), opts(), {
      logger: silentLogger(),
      createSandbox: () => fakeSandbox(),
    });
    const ck = await readCheckpoint(join(dir, "checkpoint.jsonl"));
    expect(ck.rows).toHaveLength(5);

    // Resume with everything done evaluates nothing and reproduces the results.
    const second: string[] = [];
    const out = await executeRun(fakeBenchmark(5, second), opts({ resume: true }), {
      logger: silentLogger(),
      createSandbox: () => fakeSandbox(),
    });
    expect(second).toEqual([]);
    expect((out.results?.["rows"] as unknown[]).length).toBe(5);

    // Other settings than the checkpoint's are refused before any item runs.
    const third: string[] = [];
    await expect(
      executeRun(fakeBenchmark(5, third) as unknown as BenchmarkDefinition, opts({ resume: true, seed: 4 }), {
        logger: silentLogger(),
        createSandbox: () => fakeSandbox(),
      }),
    ).rejects.toThrow(/settings differ \(seed: checkpoint 0, now 4\)/);
    await expect(
      executeRun(
        fakeBenchmark(5, third) as unknown as BenchmarkDefinition,
        opts({ resume: true, agent: "http://127.0.0.1:9/" }),
        { logger: silentLogger(), createSandbox: () => fakeSandbox() },
      ),
    ).rejects.toThrow(/agent: checkpoint null/);
    expect(third).toEqual([]);

    const text = await readFile(join(dir, "checkpoint.jsonl"), "utf8");
    expect(text).toContain('"status":"failed"');
    await writeFile(join(dir, "checkpoint.jsonl"), text.replace('"status":"failed"', '"status":"passed"'));
    await expect(
      executeRun(fakeBenchmark(5, third) as unknown as BenchmarkDefinition, opts({ resume: true }), {
        logger: silentLogger(),
        createSandbox: () => fakeSandbox(),
      }),
    ).rejects.toMatchObject({ code: "E_CHECKPOINT_CORRUPT" });
    expect(third).toEqual([]);
  });

  it("a partial checkpoint makes resume evaluate only the rest", async () => {
    const controller = new AbortController();
    const first: string[] = [];
    const events: RunnerEvent[] = [];
    const sandbox = fakeSandbox();
    const run = executeRun(fakeBenchmark(8, first, 50), opts({ concurrency: 1 }), {
      logger: silentLogger(),
      createSandbox: () => sandbox,
      signal: controller.signal,
      progress: {
        onEvent: (e) => {
          events.push(e);
          if (e.event === "task_finished" && e.done === 3) controller.abort();
        },
        close() {},
      },
    });
    const out = await run;
    expect(out).toMatchObject({ exitCode: 143, interrupted: true });
    expect(sandbox.closed).toBe(true);
    const ck = await readCheckpoint(join(dir, "checkpoint.jsonl"));
    expect(ck.rows.map((r) => r.id)).toEqual(["t/0", "t/1", "t/2"]);
    await expect(readFile(join(dir, "results.json"))).rejects.toThrow();

    const second: string[] = [];
    const done = await executeRun(fakeBenchmark(8, second), opts({ resume: true }), {
      logger: silentLogger(),
      createSandbox: () => fakeSandbox(),
    });
    expect(second.sort()).toEqual(["t/3", "t/4", "t/5", "t/6", "t/7"]);
    expect((done.results?.["rows"] as ItemResult[]).map((r) => r.id)).toEqual([
      "t/0",
      "t/1",
      "t/2",
      "t/3",
      "t/4",
      "t/5",
      "t/6",
      "t/7",
    ]);
  });

  it("requires a participant URL when the benchmark needs one", async () => {
    const def = { ...fakeBenchmark(1, []), needsParticipant: () => true };
    await expect(
      executeRun(def as unknown as BenchmarkDefinition, opts(), {
        logger: silentLogger(),
        createSandbox: () => fakeSandbox(),
      }),
    ).rejects.toMatchObject({ code: "E_NO_PARTICIPANT" });
  });
});

/**
 * A benchmark whose items from `blockFrom` on wait on the participant until the run stops them (as an item
 * does while a participant thinks); `onBlocked` is told when one starts waiting.
 */
function waitingBenchmark(
  count: number,
  blockFrom: number,
  onBlocked: (id: string) => void,
): BenchmarkDefinition<Item> {
  const base = fakeBenchmark(count, []);
  return {
    ...base,
    async evaluate(item, ctx): Promise<ItemResult> {
      if (Number(item.id.split("/")[1]) >= blockFrom) {
        await new Promise<void>((resolve) => {
          if (ctx.signal.aborted) return resolve();
          ctx.signal.addEventListener("abort", () => resolve(), { once: true });
          onBlocked(item.id);
        });
        return { id: item.id, status: "canceled", passed: false, elapsed_seconds: 0 };
      }
      return base.evaluate(item, ctx);
    },
    aggregate(rows) {
      const passed = rows.filter((r) => r.passed).length;
      return { accuracy: rows.length ? passed / rows.length : null, total: rows.length, failure_modes: {} };
    },
  };
}

describe("executeRun: time budget", () => {
  interface PartialResults {
    partial?: boolean;
    not_run?: string[];
    rows: ItemResult[];
    aggregate: Record<string, unknown>;
  }
  const readResults = async () => JSON.parse(await readFile(join(dir, "results.json"), "utf8")) as PartialResults;

  it("when the budget runs out it asks nothing more, scores the judged items and lists the rest as not run; resume runs the rest", async () => {
    const events: RunnerEvent[] = [];
    let endBudget: (() => void) | undefined;
    const armed: number[] = [];
    // The budget ends while the third item waits on the participant: an event, not a wait.
    const bench = waitingBenchmark(6, 2, () => endBudget?.());
    const out = await executeRun(bench, opts({ concurrency: 1, time_budget_seconds: 600 }), {
      logger: silentLogger(),
      createSandbox: () => fakeSandbox(),
      progress: { onEvent: (e) => events.push(e), close() {} },
      budgetTimer: (ms, onEnd) => {
        armed.push(ms);
        endBudget = onEnd;
        return () => (endBudget = undefined);
      },
    });
    expect(armed).toHaveLength(1);
    expect(armed[0]).toBeGreaterThan(0);
    expect(armed[0]).toBeLessThanOrEqual(600_000);
    expect(out.exitCode).toBe(0);
    expect(out.status).toBe("ok");
    const results = await readResults();
    expect(checkAgainst("results.schema.json", results)).toEqual([]);
    expect(results.partial).toBe(true);
    expect(results.not_run).toEqual(["t/2", "t/3", "t/4", "t/5"]);
    // Rates over the judged items only: t/0 failed, t/1 passed; the items not run are no failures.
    expect(results.rows.map((r) => r.id)).toEqual(["t/0", "t/1"]);
    expect(results.aggregate["total"]).toBe(2);
    expect(results.aggregate["accuracy"]).toBe(0.5);
    expect(results.rows.map((r) => r.failure_mode ?? null)).toEqual(["model_wrong_answer", null]);
    expect(events.find((e) => e.event === "run_started")).toMatchObject({ time_budget_seconds: 600 });
    const finished = events.find((e) => e.event === "run_finished");
    expect(finished).toMatchObject({ partial: true, not_run: 4 });
    // No task_finished for an item the budget stopped.
    expect(events.filter((e) => e.event === "task_finished").map((e) => e["task_id"])).toEqual(["t/0", "t/1"]);

    // A later run resumes from the checkpoint: only the items not run are evaluated, and the run is whole.
    const evaluated: string[] = [];
    const resumed = await executeRun(fakeBenchmark(6, evaluated), opts({ concurrency: 1, resume: true }), {
      logger: silentLogger(),
      createSandbox: () => fakeSandbox(),
    });
    expect(resumed.exitCode).toBe(0);
    expect(evaluated).toEqual(["t/2", "t/3", "t/4", "t/5"]);
    const whole = await readResults();
    expect(checkAgainst("results.schema.json", whole)).toEqual([]);
    expect(whole.partial).toBeUndefined();
    expect(whole.not_run).toBeUndefined();
    expect(whole.rows.map((r) => r.id)).toEqual(["t/0", "t/1", "t/2", "t/3", "t/4", "t/5"]);
    expect(whole.aggregate["total"]).toBe(6);
  });

  it("with the real timer: items that wait on the participant are stopped by the budget, and none counts as failed", async () => {
    const blocked: string[] = [];
    const out = await executeRun(
      waitingBenchmark(4, 0, (id) => blocked.push(id)),
      opts({ concurrency: 2, time_budget_seconds: 1 }),
      { logger: silentLogger(), createSandbox: () => fakeSandbox() },
    );
    expect(out.exitCode).toBe(0);
    const results = await readResults();
    expect(checkAgainst("results.schema.json", results)).toEqual([]);
    expect(results.partial).toBe(true);
    expect(results.rows).toEqual([]);
    expect(results.not_run).toEqual(["t/0", "t/1", "t/2", "t/3"]);
    // Only the items in flight were asked (two lanes); none was started after the budget ran out.
    expect(blocked.length).toBeLessThanOrEqual(2);
  });

  it("a run that finishes inside its budget is whole (no partial mark)", async () => {
    const out = await executeRun(fakeBenchmark(3, []), opts({ time_budget_seconds: 3600 }), {
      logger: silentLogger(),
      createSandbox: () => fakeSandbox(),
    });
    expect(out.exitCode).toBe(0);
    const results = await readResults();
    expect(results.partial).toBeUndefined();
    expect(results.rows).toHaveLength(3);
  });
});
