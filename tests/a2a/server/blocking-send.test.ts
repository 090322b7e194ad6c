import { describe, expect, it } from "vitest";
import { TaskState, type SendMessageRequest, type Task } from "@a2a-js/sdk";
import { TaskNotFoundError } from "@a2a-js/sdk/errors";
import {
  AgentEvent,
  DefaultRequestHandler,
  ServerCallContext,
  type AgentExecutor,
  type ExecutionEventBus,
  type RequestContext,
} from "@a2a-js/sdk/server";
import { BlockingSendAwareRequestHandler, isBlockingSend } from "../../../src/a2a/server/blocking-send.js";
import { BoundedTaskStore } from "../../../src/a2a/server/task-store.js";
import { PurpleExecutor } from "../../../src/purple/executor.js";
import { createSolver } from "../../../src/purple/solvers/index.js";
import { silentLogger } from "../../../src/util/logger.js";
import { agentMessage, textPart, userMessage } from "../../../src/a2a/shared/parts.js";
import { testCard } from "../helpers.js";

/** A task store that counts saves: one per event the SDK applied. */
class CountingStore extends BoundedTaskStore {
  saves = 0;
  override async save(task: Task, context: ServerCallContext): Promise<void> {
    this.saves++;
    return super.save(task, context);
  }
}

function request(returnImmediately?: boolean): SendMessageRequest {
  return {
    tenant: "",
    message: userMessage([textPart("ping")]),
    configuration:
      returnImmediately === undefined
        ? undefined
        : {
            acceptedOutputModes: [],
            historyLength: undefined,
            taskPushNotificationConfig: undefined,
            returnImmediately,
          },
    metadata: undefined,
  };
}

describe("BlockingSendAwareRequestHandler", () => {
  it("tells the executor which executions answer a blocking message/send, and only those", async () => {
    const seen: boolean[] = [];
    const probe: AgentExecutor = {
      execute: async (ctx: RequestContext, bus: ExecutionEventBus) => {
        seen.push(isBlockingSend(ctx));
        bus.publish(
          AgentEvent.message(agentMessage([textPart("ok")], { taskId: ctx.taskId, contextId: ctx.contextId })),
        );
        bus.finished();
      },
      cancelTask: async () => {},
    };
    const handler = new BlockingSendAwareRequestHandler(testCard(1), new BoundedTaskStore(), probe);
    await handler.sendMessage(request(), new ServerCallContext());
    await handler.sendMessage(request(false), new ServerCallContext());
    await handler.sendMessage(request(true), new ServerCallContext());
    for await (const _ of handler.sendMessageStream(request(), new ServerCallContext())) {
      /* drain */
    }
    expect(seen).toEqual([true, true, false, false]);
  });

  it("lets the purple executor store a blocking send's task once, where a stream stores every step", async () => {
    const store = new CountingStore();
    const handler = new BlockingSendAwareRequestHandler(
      testCard(1),
      store,
      new PurpleExecutor(await createSolver("echo"), silentLogger()),
    );
    const task = (await handler.sendMessage(request(), new ServerCallContext())) as Task;
    expect(task.status?.state).toBe(TaskState.TASK_STATE_COMPLETED);
    expect(store.saves).toBe(1);
    store.saves = 0;
    for await (const _ of handler.sendMessageStream(request(), new ServerCallContext())) {
      /* drain */
    }
    expect(store.saves).toBe(4);
  });

  it("answers a purple blocking send directly with the task the SDK's event path would store and return", async () => {
    const purple = new PurpleExecutor(await createSolver("echo"), silentLogger());
    // The same executor without its direct entry: the SDK's bus, queue and result manager (one event).
    const viaSdk: AgentExecutor = { execute: purple.execute, cancelTask: purple.cancelTask };
    const answers: Task[] = [];
    const stored: Array<Task | undefined> = [];
    for (const executor of [purple, viaSdk]) {
      const store = new CountingStore();
      const handler = new BlockingSendAwareRequestHandler(testCard(1), store, executor);
      const ctx = new ServerCallContext();
      const req = request();
      req.configuration = {
        acceptedOutputModes: [],
        historyLength: 1,
        taskPushNotificationConfig: undefined,
        returnImmediately: false,
      };
      const task = (await handler.sendMessage(req, ctx)) as Task;
      answers.push(task);
      stored.push(await handler.getTask({ tenant: "", id: task.id, historyLength: undefined }, ctx));
      expect(store.saves).toBe(1);
    }
    const shape = (t: Task | undefined) => ({
      state: t?.status?.state,
      history: t?.history.map((m) => [m.role, m.parts.map((p) => p.content?.value)]),
      artifacts: t?.artifacts.map((a) => [a.name, a.parts.map((p) => p.content?.value)]),
      ids: t?.history.every((m) => m.taskId === t.id && m.contextId === t.contextId),
    });
    expect(shape(answers[0])).toEqual(shape(answers[1]));
    expect(answers[0]!.history).toHaveLength(1); // historyLength applied to the answer
    expect(shape(stored[0])).toEqual(shape(stored[1]));
    expect(stored[0]!.history).toHaveLength(2); // the store keeps the whole history (the user's message, "ready")
  });

  it("answers an executor that throws on the direct path with the SDK's failed task", async () => {
    const failing = {
      execute: async () => {},
      cancelTask: async () => {},
      executeBlocking: async (): Promise<Task> => {
        throw new Error("boom");
      },
    };
    const handler = new BlockingSendAwareRequestHandler(testCard(1), new BoundedTaskStore(), failing);
    const task = (await handler.sendMessage(request(), new ServerCallContext())) as Task;
    expect(task.status?.state).toBe(TaskState.TASK_STATE_FAILED);
    expect(task.status?.message?.parts[0]?.content?.value).toBe("Agent execution error: boom");
    expect(task.history[0]?.parts[0]?.content?.value).toBe("ping");
  });
  it("answers tasks/get as the SDK does, from the stored task without copying it, and leaves the store unchanged", async () => {
    const store = new BoundedTaskStore();
    const purple = new PurpleExecutor(await createSolver("echo"), silentLogger());
    const ours = new BlockingSendAwareRequestHandler(testCard(1), store, purple);
    const sdk = new DefaultRequestHandler(testCard(1), store, purple);
    const ctx = new ServerCallContext();
    const sent = (await ours.sendMessage(request(), ctx)) as Task;
    for (const historyLength of [undefined, 0, -1, 1, 2, 5]) {
      const params = { tenant: "", id: sent.id, historyLength };
      expect(await ours.getTask(params, ctx)).toEqual(await sdk.getTask(params, ctx));
    }
    // A caller that changes what it was given changes nothing stored.
    for (const historyLength of [undefined, 1]) {
      const got = await ours.getTask({ tenant: "", id: sent.id, historyLength }, ctx);
      got.history.push(got.history[0]!);
      got.status = undefined;
    }
    const again = await ours.getTask({ tenant: "", id: sent.id, historyLength: undefined }, ctx);
    expect(again.history).toHaveLength(2);
    expect(again.status?.state).toBe(TaskState.TASK_STATE_COMPLETED);
    // Unknown ids, empty ids and another owner's scope answer as the SDK's.
    await expect(ours.getTask({ tenant: "", id: "nope", historyLength: undefined }, ctx)).rejects.toBeInstanceOf(
      TaskNotFoundError,
    );
    await expect(ours.getTask({ tenant: "", id: " ", historyLength: undefined }, ctx)).rejects.toThrow(
      "Task ID is required",
    );
    const otherTenant = new ServerCallContext({ tenant: "other" });
    await expect(
      ours.getTask({ tenant: "other", id: sent.id, historyLength: undefined }, otherTenant),
    ).rejects.toBeInstanceOf(TaskNotFoundError);
  });
});
