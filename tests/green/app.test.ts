import { afterEach, describe, expect, test } from "vitest";
import { readFileSync, existsSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { TaskState, type StreamResponse, type Task } from "@a2a-js/sdk";
import { createA2AClient, type WireVersion } from "../../src/a2a/client/client.js";
import { partData, partText } from "../../src/a2a/shared/parts.js";
import { validateBundle } from "../../src/bundle/validate.js";
import { collect } from "../a2a/helpers.js";
import { assessment, fixtureRunner, psAlive, requestOf, startGreen, type StartedGreen } from "./helpers.js";

let green: StartedGreen | undefined;
afterEach(async () => {
  await green?.close();
  green = undefined;
});

function statusTexts(
  events: StreamResponse[],
): Array<{ state: TaskState; text: string; data?: Record<string, unknown> }> {
  const out = [];
  for (const e of events) {
    if (e.payload?.$case !== "statusUpdate") continue;
    const parts = e.payload.value.status?.message?.parts ?? [];
    const text = parts.map(partText).filter(Boolean).join(" ");
    const data = parts.map(partData).find(Boolean);
    out.push({
      state: e.payload.value.status?.state ?? TaskState.TASK_STATE_UNSPECIFIED,
      text,
      ...(data ? { data } : {}),
    });
  }
  return out;
}

/** The text of a task's final status message. */
function statusText(task: Task): string {
  return (task.status?.message?.parts ?? []).map(partText).filter(Boolean).join(" ");
}

function bundleOf(task: Task): Record<string, unknown> {
  const art = task.artifacts.find((a) => a.name === "evaluation_bundle");
  expect(art, "evaluation_bundle artifact").toBeDefined();
  expect(art!.parts[0]?.content?.$case).toBe("data");
  const b = partData(art!.parts[0]!)!;
  expect(validateBundle(b)).toEqual([]);
  return b;
}

describe.each<WireVersion>(["1.0", "0.3"])("green agent over the %s wire", (wire) => {
  test("message/send runs the runner and completes with a valid bundle", async () => {
    green = await startGreen(fixtureRunner("events.mjs"));
    const client = await createA2AClient(green.url, wire);
    const task = (await client.sendMessage(requestOf(assessment({ run_id: `send-${wire.replace(".", "")}` })))) as Task;
    expect(task.status?.state).toBe(TaskState.TASK_STATE_COMPLETED);
    const b = bundleOf(task);
    expect(b["exit_code"]).toBe(0);
    expect(b["status"]).toBe("ok");
    expect((b["metrics"] as Record<string, unknown>)["accuracy"]).toBeCloseTo(2 / 3);
    expect((b["metrics"] as { failure_modes: Record<string, number> }).failure_modes).toEqual({
      model_wrong_answer: 1,
    });
    expect(b["participants"]).toEqual({ agent: "http://127.0.0.1:9/" });
    const workDir = join(green.resultsRoot, "a2a", b["run_id"] as string);
    expect(JSON.parse(readFileSync(join(workDir, "config.json"), "utf8"))).toMatchObject({
      benchmark: "humaneval",
      run_id: b["run_id"],
    });
    expect(existsSync(join(workDir, "evaluation_bundle.json"))).toBe(true);
    expect((b["artifacts"] as Record<string, string>)["results_path"]).toBe(join(workDir, "results.json"));
  });

  test("message/stream: runner events become working updates in order, then the bundle, then completed", async () => {
    green = await startGreen(fixtureRunner("events.mjs"));
    const client = await createA2AClient(green.url, wire);
    const events = await collect(client.sendMessageStream(requestOf(assessment())));
    expect(events[0]?.payload?.$case).toBe("task");
    const statuses = statusTexts(events);
    const working = statuses.filter((s) => s.state === TaskState.TASK_STATE_WORKING);
    expect(working.map((s) => s.data?.["event"])).toEqual([
      "starting",
      "run_started",
      "task_started",
      "task_finished",
      "task_started",
      "task_finished",
      "task_started",
      "task_finished",
      "run_finished",
    ]);
    const lastFinished = working.filter((s) => s.data?.["event"] === "task_finished").at(-1)!;
    expect(lastFinished.data).toMatchObject({ done: 3, total: 3, passed: 2 });
    expect(lastFinished.text).toMatch(/3\/3 done, 2 passed/);
    const artifactIdx = events.findIndex((e) => e.payload?.$case === "artifactUpdate");
    expect(artifactIdx).toBeGreaterThan(0);
    expect(statuses.at(-1)?.state).toBe(TaskState.TASK_STATE_COMPLETED);
  });
});

describe("green agent runner failures end failed, with the reason and a bundle that says so", () => {
  test.each([
    ["crash.mjs", "infrastructure_runner_exit_nonzero", 1],
    ["exit-nonzero.mjs", "infrastructure_runner_exit_nonzero", 3],
    ["garbage.mjs", "infrastructure_missing_artifact", 0],
  ])("%s", async (fixture, mode, exitCode) => {
    green = await startGreen(fixtureRunner(fixture));
    const client = await createA2AClient(green.url, "0.3");
    const task = (await client.sendMessage(requestOf(assessment()))) as Task;
    expect(task.status?.state).toBe(TaskState.TASK_STATE_FAILED);
    const b = bundleOf(task);
    expect(b["status"]).not.toBe("ok");
    expect(statusText(task)).toContain(String(b["status_reason"]));
    expect(b["exit_code"]).toBe(exitCode);
    expect((b["metrics"] as { failure_modes: Record<string, number> }).failure_modes[mode]).toBeGreaterThan(0);
    expect((b["errors"] as unknown[]).length).toBeGreaterThan(0);
    if (fixture === "crash.mjs") expect((b["runner_output_tail"] as string[]).join("\n")).toMatch(/crashed on purpose/);
    if (fixture === "garbage.mjs") {
      const tail = (b["runner_output_tail"] as string[]).join("\n");
      expect(tail).toMatch(/ignored: not JSON/);
      expect(tail).toMatch(/stderr garbage/);
    }
  });

  test("a runner command that cannot start still yields a bundle (exit 127)", async () => {
    green = await startGreen(() => ({ command: "/nonexistent/runner", args: [] }));
    const client = await createA2AClient(green.url);
    const task = (await client.sendMessage(requestOf(assessment()))) as Task;
    expect(task.status?.state).toBe(TaskState.TASK_STATE_FAILED);
    expect(statusText(task)).toMatch(/runner could not start/);
    const b = bundleOf(task);
    expect(b["exit_code"]).toBe(127);
    expect(
      (b["metrics"] as { failure_modes: Record<string, number> }).failure_modes["infrastructure_runner_not_started"],
    ).toBe(1);
  });
});

describe("heartbeat", () => {
  test("fires while the runner is silent", async () => {
    green = await startGreen(
      fixtureRunner("silent.mjs"),
      { heartbeatMs: 300 },
      { ...process.env, A2A_BENCH_FIXTURE_SILENT_MS: "1200" },
    );
    const client = await createA2AClient(green.url);
    const statuses = statusTexts(await collect(client.sendMessageStream(requestOf(assessment()))));
    const beats = statuses.filter((s) => s.data?.["event"] === "heartbeat");
    expect(beats.length).toBeGreaterThanOrEqual(2);
    expect(beats[0]!.text).toMatch(/Still running/);
    expect(statuses.at(-1)?.state).toBe(TaskState.TASK_STATE_COMPLETED);
  });
});

describe("cancel", () => {
  async function startAndGetTask(client: Awaited<ReturnType<typeof createA2AClient>>, body: unknown) {
    const stream = client.sendMessageStream(requestOf(body));
    const events: StreamResponse[] = [];
    const first = await stream.next();
    events.push(first.value as StreamResponse);
    const task = (first.value as StreamResponse).payload;
    if (task?.$case !== "task") throw new Error("first event is not a task");
    // wait for the runner's first event
    for await (const e of stream) {
      events.push(e);
      if (statusTexts([e])[0]?.data?.["event"] === "run_started") break;
    }
    return { taskId: task.value.id, stream, events };
  }

  test.each<WireVersion>(["1.0", "0.3"])(
    "of a runner that obeys SIGTERM → canceled with exit info (%s)",
    async (wire) => {
      // A grace far beyond any load: a cancel well inside it can only be the runner obeying SIGTERM.
      green = await startGreen(fixtureRunner("obeys-term.mjs"), { graceMs: 60_000 });
      const client = await createA2AClient(green.url, wire);
      const { taskId } = await startAndGetTask(client, assessment());
      const t0 = Date.now();
      const canceled = await client.cancelTask({ tenant: "", id: taskId, metadata: undefined });
      expect(Date.now() - t0).toBeLessThan(30_000);
      expect(canceled.status?.state).toBe(TaskState.TASK_STATE_CANCELED);
      const text = (canceled.status?.message?.parts ?? []).map(partText).join(" ");
      expect(text).toMatch(/exit_code=143/);
      // cancel of a canceled task returns it unchanged
      const again = await client.cancelTask({ tenant: "", id: taskId, metadata: undefined });
      expect(again.status?.state).toBe(TaskState.TASK_STATE_CANCELED);
    },
  );

  test("of a runner that ignores SIGTERM → killed at grace + epsilon", async () => {
    green = await startGreen(fixtureRunner("ignores-term.mjs"), { graceMs: 800 });
    const client = await createA2AClient(green.url);
    const { taskId } = await startAndGetTask(client, assessment());
    const t0 = Date.now();
    const canceled = await client.cancelTask({ tenant: "", id: taskId, metadata: undefined });
    const took = Date.now() - t0;
    expect(took).toBeGreaterThanOrEqual(750);
    // Nothing else ends this runner; the bound only says the SIGKILL came, not how fast on a busy machine.
    expect(took).toBeLessThan(30_000);
    expect((canceled.status?.message?.parts ?? []).map(partText).join(" ")).toMatch(
      /signal=SIGKILL, SIGKILL after grace/,
    );
  });

  test("of a runner with a grandchild → the whole group is gone from ps", async () => {
    green = await startGreen(fixtureRunner("grandchild.mjs"), { graceMs: 800 });
    const client = await createA2AClient(green.url);
    const { taskId } = await startAndGetTask(client, assessment({ run_id: "gc-run" }));
    const pids = JSON.parse(readFileSync(join(green.resultsRoot, "a2a", "gc-run", "pids.json"), "utf8")) as {
      runner: number;
      grandchild: number;
    };
    expect(psAlive(pids.grandchild)).toBe(true);
    const canceled = await client.cancelTask({ tenant: "", id: taskId, metadata: undefined });
    expect(canceled.status?.state).toBe(TaskState.TASK_STATE_CANCELED);
    expect(psAlive(pids.runner)).toBe(false);
    expect(psAlive(pids.grandchild)).toBe(false);
  });

  test("cancel of a completed task is -32002 (TaskNotCancelable)", async () => {
    green = await startGreen(fixtureRunner("events.mjs"));
    for (const wire of ["1.0", "0.3"] as const) {
      const client = await createA2AClient(green.url, wire);
      const task = (await client.sendMessage(requestOf(assessment()))) as Task;
      const err = await client.cancelTask({ tenant: "", id: task.id, metadata: undefined }).then(
        () => undefined,
        (e: unknown) => e,
      );
      expect(String((err as Error)?.message ?? err)).toMatch(/-32002|not cancelable/i);
    }
    // the same over raw JSON-RPC, to see the numeric code
    const client = await createA2AClient(green.url);
    const task = (await client.sendMessage(requestOf(assessment()))) as Task;
    const res = await fetch(green.url, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ jsonrpc: "2.0", id: 7, method: "tasks/cancel", params: { id: task.id } }),
    });
    expect(((await res.json()) as { error: { code: number } }).error.code).toBe(-32002);
  });
});

describe("SSE disconnect and resubscribe", () => {
  test("dropping the stream does not cancel the run; resubscribe picks it up", async () => {
    // The runner holds its item until released: the run is working for as long as the test needs.
    green = await startGreen(fixtureRunner("gated.mjs"));
    const client = await createA2AClient(green.url);
    const controller = new AbortController();
    const stream = client.sendMessageStream(requestOf(assessment({ run_id: "sse-drop" })), {
      signal: controller.signal,
    });
    const first = (await stream.next()).value as StreamResponse;
    const taskId = first.payload?.$case === "task" ? first.payload.value.id : "";
    // Drop the stream once the run is under way (its first item started), not after a guessed delay.
    for (;;) {
      const { value, done } = await stream.next();
      if (done) throw new Error("the stream ended before the run started");
      if (statusTexts([value])[0]?.data?.["event"] === "task_started") break;
    }
    controller.abort();
    await stream.return(undefined).catch(() => {});
    const mid = await client.getTask({ tenant: "", id: taskId, historyLength: undefined });
    expect(mid.status?.state).toBe(TaskState.TASK_STATE_WORKING);
    writeFileSync(join(green.resultsRoot, "a2a", "release"), "");
    const resumed = await collect(client.resubscribeTask({ tenant: "", id: taskId }));
    const last = statusTexts(resumed).at(-1);
    expect(last?.state).toBe(TaskState.TASK_STATE_COMPLETED);
    const final = await client.getTask({ tenant: "", id: taskId, historyLength: undefined });
    expect(final.status?.state).toBe(TaskState.TASK_STATE_COMPLETED);
    bundleOf(final);
  });
});

describe("queue", () => {
  test("a second assessment waits in submitted with a message, then runs (FIFO)", async () => {
    // Gated runs: A holds the only slot until the test has seen B queued.
    green = await startGreen(fixtureRunner("gated.mjs"), { maxConcurrent: 1 });
    const client = await createA2AClient(green.url);
    // A must hold the only slot before B is sent: read A's stream up to its "starting" update.
    const aStream = client.sendMessageStream(requestOf(assessment({ run_id: "q-a" })));
    const aHead: StreamResponse[] = [];
    // next() by hand: breaking out of for-await would close the stream.
    for (;;) {
      const { value, done } = await aStream.next();
      if (done) break;
      aHead.push(value);
      if (statusTexts([value])[0]?.data?.["event"] === "starting") break;
    }
    const a = collect(aStream).then((rest) => [...aHead, ...rest]);
    const bEvents = collect(client.sendMessageStream(requestOf(assessment({ run_id: "q-b" }))));
    // B is queued once the green has taken it in: poll that state (A cannot finish meanwhile).
    let health: Record<string, unknown> = {};
    for (;;) {
      health = (await (await fetch(new URL("health", green.url))).json()) as Record<string, unknown>;
      if (health["queued"] === 1) break;
      await new Promise((r) => setTimeout(r, 20));
    }
    expect(health).toMatchObject({ activeTasks: 1, queued: 1 });
    writeFileSync(join(green.resultsRoot, "a2a", "release"), "");
    const [ea, eb] = await Promise.all([a, bEvents]);
    const sb = statusTexts(eb);
    expect(sb[0]?.state).toBe(TaskState.TASK_STATE_SUBMITTED);
    expect(sb[0]?.text).toMatch(/Queued: 1 assessment\(s\) ahead/);
    expect(statusTexts(ea).at(-1)?.state).toBe(TaskState.TASK_STATE_COMPLETED);
    expect(sb.at(-1)?.state).toBe(TaskState.TASK_STATE_COMPLETED);
  });
});
