/** Interactive turns through the real purple A2A app on loopback: routing, episode state, its bounds. */
import { afterEach, describe, expect, test } from "vitest";
import { TaskState } from "@a2a-js/sdk";
import { createInteractiveSolver } from "../../../src/purple/interactive/interactive-solver.js";
import type { Episode } from "../../../src/purple/interactive/episode.js";
import { createSolver } from "../../../src/purple/solvers/index.js";
import { createEchoSolver } from "../../../src/purple/solvers/echo.js";
import { createA2ATurnSender } from "../../../src/interactive/a2a-sender.js";
import { runEpisode } from "../../../src/interactive/episode.js";
import type { WireVersion } from "../../../src/a2a/client/client.js";
import type { ServedApp } from "../../../src/a2a/server/serve.js";
import { FakeEnvironment } from "../../interactive/fakes.js";
import { converse, result, servePurple } from "./scripted-green.js";

let served: (ServedApp & { url: string }) | undefined;
afterEach(async () => {
  await served?.close();
  served = undefined;
});

const task = (instruction = "do it", extra: Record<string, unknown> = {}) => ({
  kind: "task",
  protocol: "terminal-bench-shell-v1",
  instruction,
  ...extra,
});

/** An episode that runs `step N` commands forever, counting. */
function counting(): Episode {
  let n = 0;
  const step = () => Promise.resolve({ action: { kind: "exec_request" as const, command: `echo ${++n}` } });
  return { start: step, next: step };
}

describe.each<WireVersion>(["1.0", "0.3"])("echo mode, interactive, over the %s wire", (wire) => {
  test("a task is answered `final` at once; the episode is then over; other messages still echo", async () => {
    served = await servePurple(createEchoSolver());
    const green = await converse(served.url, wire);
    const first = await green.send(task());
    expect(first.state).toBe(TaskState.TASK_STATE_COMPLETED);
    expect(first.text).toBe('{"kind":"final"}');
    expect(first.task.artifacts).toHaveLength(1);
    expect(first.task.artifacts[0]!.parts).toHaveLength(1); // ONE TextPart holding ONE JSON object
    const late = await green.send(result(0));
    expect(late.state).toBe(TaskState.TASK_STATE_FAILED);
    expect(late.text).toContain(`no episode in context ${green.contextId}`);
    const other = await converse(served.url, wire);
    expect((await other.send("ping")).task.artifacts[0]!.parts).toHaveLength(1);
  });
});

describe("interactive solver", () => {
  test("echo under the green's own episode loop: a clean run of one turn, no command", async () => {
    served = await servePurple(await createSolver("echo"));
    const environment = new FakeEnvironment();
    const record = await runEpisode({
      instruction: "Make the tests pass",
      participant: createA2ATurnSender({ url: served.url }),
      environment,
    });
    expect(record).toMatchObject({ exit_status: "final", turns: 1, commands: 0 });
    expect(environment.runs).toEqual([]);
  });

  test("turns of one context reach one episode; each context has its own", async () => {
    served = await servePurple(createInteractiveSolver("count", counting));
    const a = await converse(served.url);
    const b = await converse(served.url);
    expect((await a.send(task())).action).toEqual({ kind: "exec_request", command: "echo 1" });
    expect((await a.send(result(0, "1\n"))).action).toEqual({ kind: "exec_request", command: "echo 2" });
    expect((await b.send(task())).action).toEqual({ kind: "exec_request", command: "echo 1" });
    expect((await a.send(result(0, "2\n"))).action).toEqual({ kind: "exec_request", command: "echo 3" });
    expect(a.contextId).not.toBe(b.contextId);
    // A new task in a context starts that context's episode over.
    expect((await a.send(task())).action).toEqual({ kind: "exec_request", command: "echo 1" });
  });

  test("an exec_result with no episode, a task without instruction, a non-protocol message to a mode without single-shot: failed, named", async () => {
    served = await servePurple(createInteractiveSolver("count", counting));
    const green = await converse(served.url);
    const orphan = await green.send(result(0));
    expect(orphan.state).toBe(TaskState.TASK_STATE_FAILED);
    expect(orphan.text).toMatch(/no episode in context .* \(never started with a `task`, already final, or expired\)/);
    const bad = await green.send({ kind: "task" });
    expect(bad.state).toBe(TaskState.TASK_STATE_FAILED);
    expect(bad.text).toContain("a `task` message needs a string `instruction`");
    const plain = await green.send("What is 2+2?");
    expect(plain.state).toBe(TaskState.TASK_STATE_FAILED);
    expect(plain.text).toContain("count mode answers only terminal-bench-shell-v1 messages");
  });

  test("the state is bounded: past maxContexts the least recently used episode is dropped, not kept", async () => {
    const solver = createInteractiveSolver("count", counting, { maxContexts: 2 });
    served = await servePurple(solver);
    const greens = [await converse(served.url), await converse(served.url), await converse(served.url)];
    for (const g of greens) expect((await g.send(task())).state).toBe(TaskState.TASK_STATE_COMPLETED);
    expect(solver.activeEpisodes).toBe(2);
    const dropped = await greens[0]!.send(result(0));
    expect(dropped.state).toBe(TaskState.TASK_STATE_FAILED);
    expect(dropped.text).toContain("no episode in context");
    expect((await greens[2]!.send(result(0))).action).toEqual({ kind: "exec_request", command: "echo 2" });
  });

  test("an idle episode expires", async () => {
    let now = 0;
    const solver = createInteractiveSolver("count", counting, { idleMs: 60_000, now: () => now });
    served = await servePurple(solver);
    const green = await converse(served.url);
    await green.send(task());
    now += 59_999;
    expect((await green.send(result(0))).action).toEqual({ kind: "exec_request", command: "echo 2" });
    now += 60_000;
    expect(solver.activeEpisodes).toBe(0);
    expect((await green.send(result(0))).state).toBe(TaskState.TASK_STATE_FAILED);
  });

  test("a turn that fails ends the episode (the green ends it too)", async () => {
    let turns = 0;
    const flaky: Episode = {
      start: () => Promise.resolve({ action: { kind: "exec_request", command: "true" } }),
      next: () =>
        ++turns === 1 ? Promise.reject(new Error("model down")) : Promise.resolve({ action: { kind: "final" } }),
    };
    const solver = createInteractiveSolver("flaky", () => flaky);
    served = await servePurple(solver);
    const green = await converse(served.url);
    await green.send(task());
    const failed = await green.send(result(0));
    expect(failed.state).toBe(TaskState.TASK_STATE_FAILED);
    expect(failed.text).toContain("model down");
    expect(solver.activeEpisodes).toBe(0);
    expect((await green.send(result(0))).text).toContain("no episode in context");
  });
});
