import { afterEach, describe, expect, test } from "vitest";
import { TaskState, type Task } from "@a2a-js/sdk";
import { createPurpleApp } from "../../src/purple/app.js";
import { createSolver, SOLVERS } from "../../src/purple/solvers/index.js";
import { replyParts } from "../../src/purple/executor.js";
import { createA2AClient, type WireVersion } from "../../src/a2a/client/client.js";
import { dataPart, partData, partText, textPart, userMessage } from "../../src/a2a/shared/parts.js";
import { collect, serveOnLoopback } from "../a2a/helpers.js";
import type { ServedApp } from "../../src/a2a/server/serve.js";
import type { Solver } from "../../src/purple/solver.js";

let served: ServedApp | undefined;
afterEach(async () => {
  await served?.close();
  served = undefined;
});

describe.each<WireVersion>(["1.0", "0.3"])("purple echo over the %s wire", (wire) => {
  test("send: working 'ready', artifact response {ok, echo}, completed", async () => {
    const s = await serveOnLoopback(async (card) => createPurpleApp({ card, solver: await createSolver("echo") }));
    served = s;
    const client = await createA2AClient(s.url, wire);
    const task = (await client.sendMessage({
      tenant: "",
      message: userMessage([textPart("ping")]),
      configuration: undefined,
      metadata: undefined,
    })) as Task;
    expect(task.status?.state).toBe(TaskState.TASK_STATE_COMPLETED);
    const art = task.artifacts.find((a) => a.name === "response")!;
    expect(partData(art.parts[0]!)).toEqual({ ok: true, echo: "ping" });
    const events = await collect(
      client.sendMessageStream({
        tenant: "",
        message: userMessage([dataPart({ task_id: "t1" })]),
        configuration: undefined,
        metadata: undefined,
      }),
    );
    const kinds = events.map((e) => e.payload?.$case);
    expect(kinds).toEqual(["task", "statusUpdate", "artifactUpdate", "statusUpdate"]);
    const ready = events[1]!.payload!.$case === "statusUpdate" ? events[1]!.payload!.value : undefined;
    expect(ready?.status?.state).toBe(TaskState.TASK_STATE_WORKING);
    expect(partText(ready!.status!.message!.parts[0]!)).toBe("ready");
    const artifact = events[2]!.payload!.$case === "artifactUpdate" ? events[2]!.payload!.value.artifact : undefined;
    expect(partData(artifact!.parts[0]!)).toEqual({ ok: true, echo: { task_id: "t1" } });
  });
});

/** What a client can tell apart in a task: state, the history's roles and texts, the artifacts. */
function shape(task: Task) {
  return {
    state: task.status?.state,
    statusText: task.status?.message ? partText(task.status.message.parts[0]!) : null,
    history: task.history.map((m) => [
      m.role,
      m.parts.map((p) => (p.content?.$case === "text" ? partText(p) : partData(p))),
    ]),
    artifacts: task.artifacts.map((a) => [a.name, a.description, a.parts.map((p) => partData(p))]),
  };
}

const failing: Solver = { mode: "broken", solve: () => Promise.reject(new Error("boom")) };

describe.each<WireVersion>(["1.0", "0.3"])(
  "purple: a blocking send gets the task the event sequence leaves (%s wire)",
  (wire) => {
    test.each([
      ["echo", () => createSolver("echo"), TaskState.TASK_STATE_COMPLETED],
      ["failing", () => Promise.resolve(failing), TaskState.TASK_STATE_FAILED],
    ] as const)(
      "%s solver: same state, history and artifacts as after a stream, and as a non-blocking send",
      async (_name, solver, end) => {
        const s = await serveOnLoopback(async (card) => createPurpleApp({ card, solver: await solver() }));
        served = s;
        const client = await createA2AClient(s.url, wire);
        const send = (returnImmediately: boolean) =>
          client.sendMessage({
            tenant: "",
            message: userMessage([textPart("ping")]),
            configuration: {
              acceptedOutputModes: [],
              historyLength: undefined,
              taskPushNotificationConfig: undefined,
              returnImmediately,
            },
            metadata: undefined,
          });
        const blocking = (await send(false)) as Task;
        expect(blocking.status?.state).toBe(end);

        // The stream still shows every step; the stored task it leaves is the reference.
        const events = await collect(
          client.sendMessageStream({
            tenant: "",
            message: userMessage([textPart("ping")]),
            configuration: undefined,
            metadata: undefined,
          }),
        );
        expect(events.map((e) => e.payload?.$case)).toEqual(
          end === TaskState.TASK_STATE_COMPLETED
            ? ["task", "statusUpdate", "artifactUpdate", "statusUpdate"]
            : ["task", "statusUpdate", "statusUpdate"],
        );
        const first = events[0]!.payload!.$case === "task" ? events[0]!.payload!.value : undefined;
        const streamed = await client.getTask({ tenant: "", id: first!.id, historyLength: undefined });

        const immediate = (await send(true)) as Task;
        let polled = await client.getTask({ tenant: "", id: immediate.id, historyLength: undefined });
        // Poll the state until it is final (the test's own timeout bounds the wait, not a count of tries).
        while (polled.status?.state !== end) {
          await new Promise((r) => setTimeout(r, 10));
          polled = await client.getTask({ tenant: "", id: immediate.id, historyLength: undefined });
        }

        expect(shape(blocking)).toEqual(shape(streamed));
        expect(shape(polled)).toEqual(shape(streamed));
        // And what is stored for the blocking send is what it was answered.
        expect(shape(await client.getTask({ tenant: "", id: blocking.id, historyLength: undefined }))).toEqual(
          shape(blocking),
        );
        if (end === TaskState.TASK_STATE_FAILED) expect(shape(blocking).statusText).toBe("solver broken failed: boom");
      },
    );
  },
);

describe("solver registry", () => {
  test("unknown modes are usage errors listing the known ones; replies map to text then data", async () => {
    await expect(createSolver("nope")).rejects.toThrow(/unknown mode "nope" \(known: echo/);
    expect(Object.keys(SOLVERS)).toContain("echo");
    const parts = replyParts({ text: "def f(): pass", data: { x: 1 } });
    expect(parts.map((p) => p.content?.$case)).toEqual(["text", "data"]);
  });
});
