import { describe, expect, it } from "vitest";
import { TaskState, type SendMessageRequest, type Task } from "@a2a-js/sdk";
import {
  AgentEvent,
  ServerCallContext,
  type AgentExecutor,
  type ExecutionEventBus,
  type RequestContext,
} from "@a2a-js/sdk/server";
import { BlockingSendAwareRequestHandler, isBlockingSend } from "../../src/a2a/blocking-send.js";
import { BoundedTaskStore } from "../../src/a2a/task-store.js";
import { PurpleExecutor } from "../../src/purple/executor.js";
import { createSolver } from "../../src/purple/solvers/index.js";
import { silentLogger } from "../../src/util/logger.js";
import { agentMessage, textPart, userMessage } from "../../src/a2a/parts.js";
import { testCard } from "./helpers.js";

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
});
