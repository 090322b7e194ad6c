/**
 * The episode loop against REAL A2A participants served on loopback by the project's own
 * server stack (createPurpleApp with a scripted Solver; createA2AExpressApp with a pausing
 * executor for input-required), through createA2ATurnSender. The JSON-RPC requests are
 * recorded on the wire (a wrapper of node's HTTP client, which the client's lean fetch uses) to check the contextId / taskId rules.
 */
import { afterEach, beforeEach, describe, expect, test, vi } from "vitest";
import http from "node:http";
import { TaskState } from "@a2a-js/sdk";
import { AgentEvent, type AgentExecutor, type ExecutionEventBus, type RequestContext } from "@a2a-js/sdk/server";
import { createPurpleApp } from "../../src/purple/app.js";
import { createA2AExpressApp } from "../../src/a2a/server/express-app.js";
import { agentMessage, textPart } from "../../src/a2a/shared/parts.js";
import { silentLogger } from "../../src/util/logger.js";
import type { Solver, SolverInput, SolverReply } from "../../src/purple/solver.js";
import type { ServedApp } from "../../src/a2a/server/serve.js";
import { createA2ATurnSender } from "../../src/interactive/a2a-sender.js";
import { runEpisode } from "../../src/interactive/episode.js";
import { serveOnLoopback } from "../a2a/helpers.js";
import { FakeEnvironment, outcome } from "./fakes.js";

/** A Solver answering from a script (a reply or a function of the input), recording what it was asked. */
class ScriptedSolver implements Solver {
  readonly mode = "scripted";
  readonly inputs: SolverInput[] = [];
  constructor(private readonly script: ((input: SolverInput, signal: AbortSignal) => Promise<SolverReply>)[]) {}
  solve(input: SolverInput, signal: AbortSignal): Promise<SolverReply> {
    this.inputs.push(input);
    const step = this.script[this.inputs.length - 1];
    return step ? step(input, signal) : Promise.reject(new Error("script exhausted"));
  }
}

const reply =
  (value: unknown, extra: Partial<SolverReply> = {}) =>
  () =>
    Promise.resolve({ text: JSON.stringify(value), ...extra });

/** Waits `ms` (or until aborted), then answers final: a participant too slow for the turn. */
const sleepThenFinal = (ms: number) => (_input: SolverInput, signal: AbortSignal) =>
  new Promise<SolverReply>((resolve) => {
    const timer = setTimeout(() => resolve({ text: '{"kind":"final"}' }), ms);
    timer.unref();
    signal.addEventListener("abort", () => {
      clearTimeout(timer);
      resolve({ text: '{"kind":"final"}' });
    });
  });

let served: (ServedApp & { url: string })[] = [];
let wire: { method: string; message: Record<string, unknown> }[] = [];

beforeEach(() => {
  wire = [];
  const realRequest = http.request.bind(http) as (...args: unknown[]) => http.ClientRequest;
  // Record every JSON-RPC request body on its way out (the client's fetch sends it with http.request).
  vi.spyOn(http, "request").mockImplementation((...args: unknown[]) => {
    const req = realRequest(...args);
    const end = req.end.bind(req) as (chunk?: unknown) => http.ClientRequest;
    req.end = ((chunk?: unknown) => {
      if (typeof chunk === "string") {
        const body = JSON.parse(chunk);
        if (body?.params?.message) wire.push({ method: body.method, message: body.params.message });
      }
      return end(chunk);
    }) as typeof req.end;
    return req;
  });
});

afterEach(async () => {
  vi.restoreAllMocks();
  await Promise.all(served.map((s) => s.close()));
  served = [];
});

async function purple(solver: Solver) {
  const s = await serveOnLoopback((card) => createPurpleApp({ card, solver }));
  served.push(s);
  return s;
}

describe("an episode over A2A with a scripted purple", () => {
  test("a new task per turn in the participant's context: no contextId first, then the participant's, never a taskId", async () => {
    const usage = { prompt_tokens: 7, completion_tokens: 3, total_tokens: 10 };
    const solver = new ScriptedSolver([
      reply({ kind: "exec_request", command: "ls" }, { usage }),
      reply({ kind: "exec_request", command: "cat README", timeout: 2 }),
      reply({ kind: "final", output: "done" }, { usage }),
    ]);
    const s = await purple(solver);
    const env = new FakeEnvironment((cmd) => outcome({ stdout: `ran ${cmd}\n` }));
    const commands: string[] = [];
    const record = await runEpisode({
      instruction: "Do the thing",
      participant: createA2ATurnSender({ url: s.url }),
      environment: env,
      onCommand: (e) => commands.push(e.command),
    });
    expect(record).toMatchObject({ exit_status: "final", turns: 3, commands: 2, final_output: "done" });
    expect(record.usage).toMatchObject({ total_tokens: 20, self_reported: true });
    expect(commands).toEqual(["ls", "cat README"]);
    expect(env.runs[1]!.timeoutS).toBe(2);

    // What the participant was told.
    const told = solver.inputs.map((i) => JSON.parse(i.text));
    expect(told[0]).toMatchObject({ kind: "task", protocol: "terminal-bench-shell-v1", instruction: "Do the thing" });
    expect(told[1]).toMatchObject({ kind: "exec_result", exit_code: 0, stdout: "ran ls\n", stderr: "" });
    expect(told[2]).toMatchObject({ kind: "exec_result", stdout: "ran cat README\n" });

    // On the wire: one send per turn, ONE text part, contextId absent then reused, no taskId.
    expect(wire).toHaveLength(3);
    for (const w of wire) expect(w.message["parts"]).toHaveLength(1);
    expect(wire[0]!.message).not.toHaveProperty("contextId");
    const contextId = record.context_id;
    expect(contextId).not.toBe("");
    expect(wire[1]!.message["contextId"]).toBe(contextId);
    expect(wire[2]!.message["contextId"]).toBe(contextId);
    for (const w of wire) expect(w.message).not.toHaveProperty("taskId");
  });

  test("the turn limit over A2A", async () => {
    const s = await purple(
      new ScriptedSolver([
        reply({ kind: "exec_request", command: "a" }),
        reply({ kind: "exec_request", command: "b" }),
      ]),
    );
    const record = await runEpisode({
      instruction: "x",
      limits: { maxTurns: 2 },
      participant: createA2ATurnSender({ url: s.url }),
      environment: new FakeEnvironment(),
    });
    expect(record).toMatchObject({ exit_status: "turn_limit", turns: 2, commands: 2 });
    expect(wire).toHaveLength(2);
  });

  test("a participant that sleeps past the turn timeout ends the episode; the next episode runs", async () => {
    const solver = new ScriptedSolver([
      reply({ kind: "exec_request", command: "ls" }),
      sleepThenFinal(4000),
      reply({ kind: "final", output: "second episode" }),
    ]);
    const s = await purple(solver);
    const participant = createA2ATurnSender({ url: s.url });
    const t0 = Date.now();
    const first = await runEpisode({
      instruction: "x",
      limits: { turnTimeoutS: 1 },
      participant,
      environment: new FakeEnvironment(),
    });
    expect(first).toMatchObject({
      exit_status: "participant_error",
      turns: 1,
      error: { code: "E_PARTICIPANT_TIMEOUT" },
    });
    expect(Date.now() - t0).toBeLessThan(3500);
    const second = await runEpisode({ instruction: "y", participant, environment: new FakeEnvironment() });
    expect(second).toMatchObject({ exit_status: "final", final_output: "second episode" });
    // A new episode is a new conversation.
    expect(second.context_id).not.toBe(first.context_id);
  });

  test("cancel while the participant thinks ends the episode canceled, promptly", async () => {
    // The participant would answer after a minute; ending well before it can only be the cancel.
    const s = await purple(new ScriptedSolver([sleepThenFinal(60_000)]));
    const controller = new AbortController();
    setTimeout(() => controller.abort(), 200);
    const t0 = Date.now();
    const record = await runEpisode({
      instruction: "x",
      participant: createA2ATurnSender({ url: s.url }),
      environment: new FakeEnvironment(),
      signal: controller.signal,
    });
    expect(record.exit_status).toBe("canceled");
    expect(Date.now() - t0).toBeLessThan(30_000);
  });

  test("cancel mid-command ends the episode canceled", async () => {
    const s = await purple(new ScriptedSolver([reply({ kind: "exec_request", command: "sleep 100" })]));
    const controller = new AbortController();
    const env = new FakeEnvironment(
      (_cmd, signal) =>
        new Promise((resolve) => {
          setTimeout(() => controller.abort(), 50);
          signal.addEventListener("abort", () => resolve(outcome({ exitCode: null, durationMs: 50 })));
        }),
    );
    const record = await runEpisode({
      instruction: "x",
      participant: createA2ATurnSender({ url: s.url }),
      environment: env,
      signal: controller.signal,
    });
    expect(record).toMatchObject({ exit_status: "canceled", turns: 1 });
  });

  test("a solver failure (task failed) is the participant's failure", async () => {
    const s = await purple(new ScriptedSolver([() => Promise.reject(new Error("model quota exceeded"))]));
    const record = await runEpisode({
      instruction: "x",
      participant: createA2ATurnSender({ url: s.url }),
      environment: new FakeEnvironment(),
    });
    expect(record.exit_status).toBe("participant_error");
    expect(record.error?.code).toBe("E_PARTICIPANT_TASK_FAILED");
    expect(record.error?.message).toMatch(/model quota exceeded/);
  });

  test("a reply over the size cap is the participant's failure", async () => {
    const s = await purple(new ScriptedSolver([() => Promise.resolve({ text: "z".repeat(50_000) })]));
    const record = await runEpisode({
      instruction: "x",
      participant: createA2ATurnSender({ url: s.url, maxReplyBytes: 10_000 }),
      environment: new FakeEnvironment(),
    });
    expect(record).toMatchObject({
      exit_status: "participant_error",
      error: { code: "E_PARTICIPANT_REPLY_TOO_LARGE" },
    });
  });

  test("an unreachable participant is a participant error naming its URL", async () => {
    const s = await purple(new ScriptedSolver([]));
    const url = s.url;
    await s.close();
    served = [];
    const record = await runEpisode({
      instruction: "x",
      participant: createA2ATurnSender({ url }),
      environment: new FakeEnvironment(),
    });
    expect(record.exit_status).toBe("participant_error");
    expect(record.error?.message).toContain(url);
  });
});

/** Leaves its first task input-required with an exec_request; answers `final` in the continued task. */
class PausingExecutor implements AgentExecutor {
  readonly seen: { taskId: string; contextId: string; continued: boolean }[] = [];
  execute = async (ctx: RequestContext, bus: ExecutionEventBus): Promise<void> => {
    this.seen.push({ taskId: ctx.taskId, contextId: ctx.contextId, continued: ctx.task !== undefined });
    const ids = { taskId: ctx.taskId, contextId: ctx.contextId };
    const first = this.seen.length === 1;
    const text = first
      ? JSON.stringify({ kind: "exec_request", command: "ls" })
      : JSON.stringify({ kind: "final", output: "resumed" });
    bus.publish(
      AgentEvent.task({
        id: ctx.taskId,
        contextId: ctx.contextId,
        status: {
          state: first ? TaskState.TASK_STATE_INPUT_REQUIRED : TaskState.TASK_STATE_COMPLETED,
          message: agentMessage([textPart(text)], ids),
          timestamp: new Date().toISOString(),
        },
        artifacts: [],
        history: [ctx.userMessage],
        metadata: undefined,
      }),
    );
    bus.finished();
  };
  cancelTask = async (): Promise<void> => {};
}

describe("input-required over A2A", () => {
  test("the next message continues the paused task: its taskId, the same context", async () => {
    const executor = new PausingExecutor();
    const s = await serveOnLoopback((card) => createA2AExpressApp({ card, executor, logger: silentLogger() }));
    served.push(s);
    const record = await runEpisode({
      instruction: "x",
      participant: createA2ATurnSender({ url: s.url }),
      environment: new FakeEnvironment(),
    });
    expect(record).toMatchObject({ exit_status: "final", final_output: "resumed", turns: 2, commands: 1 });
    expect(executor.seen).toHaveLength(2);
    expect(executor.seen[1]).toEqual({ ...executor.seen[0], continued: true });
    expect(wire[0]!.message).not.toHaveProperty("taskId");
    expect(wire[1]!.message["taskId"]).toBe(executor.seen[0]!.taskId);
    expect(wire[1]!.message["contextId"]).toBe(executor.seen[0]!.contextId);
  });
});
