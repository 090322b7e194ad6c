/**
 * A run's status: infrastructure failures make it an error (no score), model
 * failures stay scores. Pure judgeRun, then the runner end to end with a fake
 * benchmark and sandbox: the participant check, an InfrastructureError from an
 * item, the infrastructure share, and the isolation requirement.
 */
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { mkdtemp, readFile, rm } from "node:fs/promises";
import { createServer } from "node:http";
import type { AddressInfo } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { EXIT_INFRASTRUCTURE, executeRun } from "../../src/runner/run-benchmark.js";
import type { BenchmarkDefinition, ItemResult } from "../../src/runner/benchmark.js";
import type { RunOptions } from "../../src/runner/options.js";
import { testRunOptions } from "../support/run-options.js";
import type { Participant } from "../../src/a2a/shared/participant.js";
import { createA2AParticipant } from "../../src/a2a/client/participant-client.js";
import { InfrastructureError, toolsMissing } from "../../src/util/infrastructure-error.js";
import { countFailureModes, judgeRun } from "../../src/runner/run-verdict.js";
import type { ExecOutcome, Sandbox } from "../../src/sandbox/types.js";
import type { IsolationLevel } from "../../src/sandbox/registry.js";
import { createLogger, silentLogger } from "../../src/util/logger.js";
import { SandboxError } from "../../src/sandbox/errors.js";
import { checkAgainst } from "../../src/util/schema.js";
import { participantFailureMode } from "../../src/runner/participant-failure.js";
import { startFakeParticipant } from "../a2a/fake-participant.js";

const row = (id: string, over: Partial<ItemResult> = {}): ItemResult => ({
  id,
  status: "failed",
  passed: false,
  elapsed_seconds: 0,
  ...over,
});

describe("judgeRun", () => {
  it("model failures are a score, however many", () => {
    const rows = [
      row("a", { failure_mode: "model_wrong_answer" }),
      row("b", { failure_mode: "model_agent_timeout" }),
      row("c", { failure_mode: "model_no_code" }),
    ];
    expect(judgeRun(rows, 0.1)).toMatchObject({ status: "ok", error: null, infrastructure_failures: 0 });
  });

  it("every item failed on our side → error, naming the modes and the first error", () => {
    const rows = [
      row("a", { failure_mode: "infrastructure_test_run", error: "pytest: No module named pytest" }),
      row("b", { failure_mode: "infrastructure_test_run" }),
    ];
    const v = judgeRun(rows, 1);
    expect(v.status).toBe("error");
    expect(v.error?.code).toBe("E_INFRASTRUCTURE_SHARE");
    expect(v.error?.message).toMatch(/every item \(2\).*infrastructure_test_run ×2.*No module named pytest/);
  });

  it("more than the share → error; at or below it → ok", () => {
    const rows = Array.from({ length: 10 }, (_, i) =>
      row(`r${i}`, i < 2 ? { failure_mode: "infrastructure_sandbox" } : { passed: true, status: "passed" }),
    );
    expect(judgeRun(rows, 0.2).status).toBe("ok");
    const v = judgeRun(rows, 0.1);
    expect(v.status).toBe("error");
    expect(v.error?.message).toMatch(/2 of 10 items \(20\.0 %\).*max_infrastructure_failure_share=0\.1/);
    expect(judgeRun(rows.slice(2), 0).status).toBe("ok");
  });

  it("failure modes are counted per row; a failed row without one is other_failed", () => {
    expect(
      countFailureModes([
        row("a", { failure_mode: "model_wrong_answer" }),
        row("b"),
        row("c", { passed: true, status: "passed" }),
      ]),
    ).toEqual({
      model_wrong_answer: 1,
      other_failed: 1,
    });
  });

  it("an InfrastructureError that stopped the run wins", () => {
    const v = judgeRun([], 0.1, toolsMissing("pytest", "pip install pytest"));
    expect(v).toMatchObject({
      status: "error",
      error: { code: "E_TOOLS_MISSING", message: expect.stringMatching(/pytest is missing; fix: pip install pytest/) },
    });
  });
});

/** A sandbox that runs nothing; every program "prints" `stdout`. Counts exec calls. */
function fakeSandbox(isolation: IsolationLevel = "bwrap", stdout = ""): Sandbox & { execs: number } {
  const ok: ExecOutcome = {
    exitCode: 0,
    signal: null,
    timedOut: false,
    isCanceled: false,
    outputLimitExceeded: false,
    durationMs: 1,
    stdoutTail: stdout,
    stderrTail: "",
  };
  return {
    backend: "local",
    isolation,
    warnings: [],
    capabilities: new Set(),
    execs: 0,
    async exec() {
      this.execs++;
      return ok;
    },
    async execMany(r) {
      return r.map(() => ok);
    },
    async close() {},
  };
}

interface Item {
  id: string;
}

/** Items answered by `answer(i)`; asks the participant first when there is one. */
function bench(
  count: number,
  answer: (i: number) => ItemResult | Error,
  evaluated: string[] = [],
): BenchmarkDefinition<Item> {
  return {
    name: "fake",
    async loadItems() {
      return Array.from({ length: count }, (_, i) => ({ id: `t/${i}` }));
    },
    needsParticipant: (o) => o.agent !== undefined,
    async evaluate(item, ctx) {
      evaluated.push(item.id);
      if (ctx.participant) await ctx.participant.ask({ text: item.id }, ctx.signal);
      const a = answer(Number(item.id.slice(2)));
      if (a instanceof Error) throw a;
      return { ...a, id: item.id };
    },
    aggregate(rows) {
      return { accuracy: rows.length ? rows.filter((r) => r.passed).length / rows.length : null };
    },
  };
}

let dir: string;
beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), "verdict-"));
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
const results = async () => JSON.parse(await readFile(join(dir, "results.json"), "utf8")) as Record<string, unknown>;

describe("executeRun: infrastructure failures are errors, not scores", () => {
  it("nothing listening at the participant URL → no item runs, status error naming the URL, exit 3", async () => {
    const closed = createServer();
    await new Promise<void>((r) => closed.listen(0, "127.0.0.1", () => r()));
    const url = `http://127.0.0.1:${(closed.address() as AddressInfo).port}/purple`;
    await new Promise<void>((r) => closed.close(() => r()));
    const evaluated: string[] = [];
    const out = await executeRun(
      bench(3, () => row("x", { passed: true, status: "passed" }), evaluated),
      opts({ agent: url }),
      {
        logger: silentLogger(),
        createSandbox: () => fakeSandbox(),
        createParticipant: (o) =>
          createA2AParticipant({ url: o.agent, timeoutMs: 2000, attempts: 1, logger: silentLogger() }),
      },
    );
    expect(out.exitCode).toBe(EXIT_INFRASTRUCTURE);
    expect(evaluated).toEqual([]);
    const doc = await results();
    expect(checkAgainst("results.schema.json", doc)).toEqual([]);
    expect(doc["status"]).toBe("error");
    expect(doc["error"]).toMatchObject({ code: "E_PARTICIPANT_UNREACHABLE", message: expect.stringContaining(url) });
    expect((doc["error"] as { message: string }).message).toMatch(/connection refused/);
  });

  it("a participant that answers (wrongly) is checked once and scored: status ok, exit 0", async () => {
    let checks = 0;
    const participant: Participant = {
      url: "http://fake/",
      async check() {
        checks++;
      },
      async ask() {
        return { text: "wrong", data: [], state: "completed" };
      },
      async close() {},
    };
    const out = await executeRun(
      bench(4, () => row("x", { failure_mode: "model_wrong_answer" })),
      opts({ agent: "http://fake/" }),
      {
        logger: silentLogger(),
        createSandbox: () => fakeSandbox(),
        createParticipant: () => participant,
      },
    );
    expect(checks).toBe(1);
    expect(out.exitCode).toBe(0);
    const doc = await results();
    expect(doc).toMatchObject({
      status: "ok",
      error: null,
      aggregate: { accuracy: 0, failure_modes: { model_wrong_answer: 4 } },
    });
  });

  it("an InfrastructureError from an item (tools missing) stops the run: no further item starts", async () => {
    const evaluated: string[] = [];
    const out = await executeRun(
      bench(20, () => toolsMissing("pytest", "pip install pytest"), evaluated),
      opts({ concurrency: 1 }),
      {
        logger: silentLogger(),
        createSandbox: () => fakeSandbox(),
      },
    );
    expect(out.exitCode).toBe(EXIT_INFRASTRUCTURE);
    expect(evaluated.length).toBe(1);
    expect(await results()).toMatchObject({ status: "error", error: { code: "E_TOOLS_MISSING" } });
  });

  it("infrastructure rows above max_infrastructure_failure_share → error; the config key moves the line", async () => {
    const answer = (i: number) =>
      i < 3
        ? row("x", { status: "error", failure_mode: "infrastructure_sandbox", error: "sandbox died" })
        : row("x", { passed: true, status: "passed" });
    const a = await executeRun(bench(10, answer), opts(), {
      logger: silentLogger(),
      createSandbox: () => fakeSandbox(),
    });
    expect(a.exitCode).toBe(EXIT_INFRASTRUCTURE);
    expect(await results()).toMatchObject({
      status: "error",
      infrastructure_failures: 3,
      aggregate: { failure_modes: { infrastructure_sandbox: 3 } },
    });
    await rm(dir, { recursive: true, force: true });
    const b = await executeRun(bench(10, answer), opts({ max_infrastructure_failure_share: 0.5 }), {
      logger: silentLogger(),
      createSandbox: () => fakeSandbox(),
    });
    expect(b.exitCode).toBe(0);
    expect(await results()).toMatchObject({ status: "ok", infrastructure_failures: 3 });
  });

  it("sandbox failures with a sound sandbox afterwards are the participant's (scored); with a broken one, ours", async () => {
    // The participant's programs broke their sandbox on 3 of 10 items (e.g. `kill -9 -1`).
    const answer = (i: number) =>
      i < 3
        ? row("x", { status: "error", failure_mode: "infrastructure_sandbox", error: "fork server exited" })
        : row("x", { passed: true, status: "passed" });
    const sound = fakeSandbox("bwrap", "42\n");
    const a = await executeRun(bench(10, answer), opts(), { logger: silentLogger(), createSandbox: () => sound });
    expect(a.exitCode).toBe(0);
    expect(sound.execs).toBe(1); // the canary
    expect(await results()).toMatchObject({
      status: "ok",
      infrastructure_failures: 0,
      sandbox_failures_attributed_to_participant: 3,
      aggregate: { accuracy: 0.7 },
    });
    await rm(dir, { recursive: true, force: true });
    const broken = fakeSandbox("bwrap", "");
    const b = await executeRun(bench(10, answer), opts(), { logger: silentLogger(), createSandbox: () => broken });
    expect(b.exitCode).toBe(EXIT_INFRASTRUCTURE);
    expect(await results()).toMatchObject({
      status: "error",
      infrastructure_failures: 3,
      sandbox_failures_attributed_to_participant: 0,
    });
  });

  it("full isolation required and the sandbox is weaker → refused before any item, with the fix", async () => {
    const evaluated: string[] = [];
    const out = await executeRun(
      bench(3, () => row("x"), evaluated),
      opts(),
      {
        logger: silentLogger(),
        createSandbox: () => fakeSandbox("unshare"),
        requireFullIsolation: { optIn: "set THE_OPT_IN=1" },
      },
    );
    expect(out.exitCode).toBe(EXIT_INFRASTRUCTURE);
    expect(evaluated).toEqual([]);
    const doc = await results();
    expect(doc["error"]).toMatchObject({ code: "E_ISOLATION_WEAK" });
    expect((doc["error"] as { message: string }).message).toMatch(
      /"unshare".*apt-get install -y bubblewrap.*THE_OPT_IN/,
    );
  });

  it("full isolation required and present → runs", async () => {
    const out = await executeRun(
      bench(2, () => row("x", { passed: true, status: "passed" })),
      opts(),
      {
        logger: silentLogger(),
        createSandbox: () => fakeSandbox("bwrap"),
        requireFullIsolation: { optIn: "x" },
      },
    );
    expect(out.exitCode).toBe(0);
  });
});

it("InfrastructureError keeps its code and fix", () => {
  const e = new InfrastructureError("E_FIXTURES", "RedCode fixtures could not be set up", { fix: "run as root" });
  expect(e).toMatchObject({
    code: "E_FIXTURES",
    fix: "run as root",
    message: "RedCode fixtures could not be set up; fix: run as root",
  });
});

describe("executeRun: after the card fetch, the participant's bad replies are its scored failures", () => {
  /** Asks the participant, mapping a failed question as the benchmarks do (participant-failure.ts). */
  function askingBench(count: number): BenchmarkDefinition<Item> {
    return {
      ...bench(count, () => row("x")),
      async evaluate(item, ctx) {
        try {
          const reply = await ctx.participant!.ask({ text: item.id }, ctx.signal);
          const passed = reply.text === "right";
          return row(item.id, passed ? { passed, status: "passed" } : { failure_mode: "model_wrong_answer" });
        } catch (err) {
          return row(item.id, { status: "error", failure_mode: participantFailureMode(err), error: String(err) });
        }
      },
    };
  }

  it("malformed JSON-RPC, JSON-RPC errors, HTTP 500 and resets on 40 % of items: status ok, scored, counted", async () => {
    const bad = ["malformed", "rpc_error", "http_500", "reset"] as const;
    const f = await startFakeParticipant({
      answer: (_n, text) => {
        const i = Number(text.slice(2));
        return i < 4 ? { kind: bad[i]! } : { kind: "text", text: "right" };
      },
    });
    try {
      const out = await executeRun(askingBench(10), opts({ agent: f.url, concurrency: 1 }), {
        logger: silentLogger(),
        createSandbox: () => fakeSandbox(),
        createParticipant: (o) =>
          createA2AParticipant({ url: o.agent, timeoutMs: 5000, attempts: 1, logger: silentLogger() }),
      });
      expect(out.exitCode).toBe(0);
      const doc = await results();
      expect(checkAgainst("results.schema.json", doc)).toEqual([]);
      expect(doc).toMatchObject({
        status: "ok",
        error: null,
        infrastructure_failures: 0,
        aggregate: { accuracy: 0.6, participant_errors: 4, failure_modes: { model_participant_error: 4 } },
      });
    } finally {
      await f.close();
    }
  });
});

describe("executeRun: the participant's card check runs with the sandbox start, and still gates the first item", () => {
  /** A participant whose check is driven by the test; `closed` and the check's signal are recorded. */
  function drivenParticipant(check: (signal: AbortSignal) => Promise<void>) {
    const state = { checkStarted: false, closed: false, checkSignal: null as AbortSignal | null, asks: 0 };
    let started!: () => void;
    const checkStarted = new Promise<void>((r) => (started = r));
    const participant: Participant = {
      url: "http://fake/",
      async check(signal) {
        state.checkStarted = true;
        state.checkSignal = signal;
        started();
        await check(signal);
      },
      async ask() {
        state.asks++;
        return { text: "x", data: [], state: "completed" };
      },
      async close() {
        state.closed = true;
      },
    };
    return { participant, state, checkStarted };
  }
  const unreachable = () =>
    new InfrastructureError("E_PARTICIPANT_UNREACHABLE", "no agent card at http://fake/", { fix: "serve it" });
  const within = <T>(p: Promise<T>, ms: number, what: string): Promise<T> =>
    Promise.race([
      p,
      new Promise<T>((_, reject) => setTimeout(() => reject(new Error(`${what}: not in ${ms} ms`)), ms)),
    ]);

  it("the card is fetched while the sandbox is still starting (a sandbox that waits for it does not deadlock)", async () => {
    const { participant, checkStarted } = drivenParticipant(async () => {});
    const out = await executeRun(
      bench(3, () => row("x", { passed: true, status: "passed" })),
      opts({ agent: "http://fake/" }),
      {
        logger: silentLogger(),
        // Ready only once the check has begun: a check started after the sandbox would never come.
        createSandbox: async () => {
          await within(checkStarted, 3000, "card check during sandbox start");
          return fakeSandbox();
        },
        createParticipant: () => participant,
      },
    );
    expect(out.exitCode).toBe(0);
  });

  it("a card check that fails before the sandbox is ready: no item runs, status error with the check's reason, sandbox closed", async () => {
    const { participant, state } = drivenParticipant(async () => {
      throw unreachable();
    });
    const evaluated: string[] = [];
    let closed = false;
    const out = await executeRun(
      bench(3, () => row("x", { passed: true, status: "passed" }), evaluated),
      opts({ agent: "http://fake/" }),
      {
        logger: silentLogger(),
        createSandbox: async () => {
          await new Promise((r) => setTimeout(r, 50));
          return { ...fakeSandbox(), close: async () => void (closed = true) };
        },
        createParticipant: () => participant,
      },
    );
    expect(out.exitCode).toBe(EXIT_INFRASTRUCTURE);
    expect(evaluated).toEqual([]);
    expect(state.asks).toBe(0);
    expect(closed).toBe(true);
    expect(state.closed).toBe(true);
    expect(await results()).toMatchObject({ status: "error", error: { code: "E_PARTICIPANT_UNREACHABLE" } });
  });

  it("a sandbox that cannot start: its error is the run's, the pending card check is aborted and the participant closed", async () => {
    const { participant, state } = drivenParticipant(
      (signal) =>
        new Promise((_, reject) =>
          signal.addEventListener("abort", () => reject(signal.reason as Error), { once: true }),
        ),
    );
    await expect(
      executeRun(
        bench(3, () => row("x")),
        opts({ agent: "http://fake/" }),
        {
          logger: silentLogger(),
          createSandbox: async () => {
            throw new SandboxError("E_SANDBOX_UNAVAILABLE", "no isolation on this host");
          },
          createParticipant: () => participant,
        },
      ),
    ).rejects.toThrow(/no isolation on this host/);
    expect(state.checkStarted).toBe(true);
    expect(state.checkSignal?.aborted).toBe(true);
    expect(state.closed).toBe(true);
  });

  it("weak isolation refused and an unreachable participant: the isolation refusal is the reason (first stop kept)", async () => {
    const { participant } = drivenParticipant(async () => {
      throw unreachable();
    });
    const evaluated: string[] = [];
    const out = await executeRun(
      bench(3, () => row("x"), evaluated),
      opts({ agent: "http://fake/" }),
      {
        logger: silentLogger(),
        createSandbox: () => fakeSandbox("none"),
        createParticipant: () => participant,
        requireFullIsolation: { optIn: "test" },
      },
    );
    expect(out.exitCode).toBe(EXIT_INFRASTRUCTURE);
    expect(evaluated).toEqual([]);
    expect(await results()).toMatchObject({ status: "error", error: { code: "E_ISOLATION_WEAK" } });
  });

  it("logs when each start-up step ended (ms since the process started, in the order they can end)", async () => {
    const lines: string[] = [];
    const logger = createLogger({
      component: "runner",
      level: "debug",
      pretty: false,
      destination: { write: (l: string) => void lines.push(l) },
    });
    const { participant } = drivenParticipant(async () => {});
    const out = await executeRun(
      bench(2, () => row("x", { passed: true, status: "passed" })),
      opts({ agent: "http://fake/" }),
      {
        logger,
        createSandbox: () => fakeSandbox(),
        createParticipant: () => participant,
      },
    );
    expect(out.exitCode).toBe(0);
    const startUp = lines.map((l) => JSON.parse(l) as Record<string, unknown>).find((l) => l["msg"] === "start-up");
    const t = startUp?.["ms_since_process_start"] as Record<string, number>;
    expect(Object.keys(t)).toEqual(
      expect.arrayContaining(["entered", "dataset_loaded", "sandbox_ready", "card_checked", "first_item"]),
    );
    expect(t["entered"]).toBeLessThanOrEqual(t["dataset_loaded"]!);
    expect(t["dataset_loaded"]).toBeLessThanOrEqual(t["first_item"]!);
    expect(t["sandbox_ready"]).toBeLessThanOrEqual(t["first_item"]!);
    expect(t["card_checked"]).toBeLessThanOrEqual(t["first_item"]!);
  });

  it("a check that throws something other than an infrastructure failure is our bug: the run rejects", async () => {
    const { participant, state } = drivenParticipant(async () => {
      throw new TypeError("bug in the check");
    });
    await expect(
      executeRun(
        bench(2, () => row("x")),
        opts({ agent: "http://fake/" }),
        {
          logger: silentLogger(),
          createSandbox: () => fakeSandbox(),
          createParticipant: () => participant,
        },
      ),
    ).rejects.toThrow(/bug in the check/);
    expect(state.closed).toBe(true);
  });
});
