/**
 * The purple agent's AgentExecutor: wraps a Solver. Publishes the task,
 * `working` "ready", the `response` artifact, then `completed` (smi_bench's
 * purple stub sequence). A solver error ends the task `failed` with the reason.
 * A blocking `message/send` sees only the end of that sequence, so it gets the
 * same final task (history, artifact, status): straight from `executeBlocking`
 * for a new task, or published as one event otherwise (blocking-send.ts); the
 * task is stored when the solver has answered.
 */
import { randomUUID } from "node:crypto";
import { TaskState, type Artifact, type Part, type Task, type TaskStatus } from "@a2a-js/sdk";
import { AgentEvent, type ExecutionEventBus, type RequestContext } from "@a2a-js/sdk/server";
import { usageOfError, type Solver, type SolverReply } from "./solver.js";
import { submittedTaskEvent } from "../a2a/server/task-events.js";
import { isBlockingSend, type DirectBlockingExecutor } from "../a2a/server/blocking-send.js";
import { agentMessage, dataPart, firstData, joinedText, textPart } from "../a2a/shared/parts.js";
import type { Logger } from "../util/logger.js";
import { USAGE_METADATA_KEY } from "../a2a/shared/usage.js";
import { errorMessage } from "../util/errors.js";
import { promiseFrom } from "../util/promise-from.js";

/** Parts of the `response` artifact: echo → its DataPart; others → text (if any) then data (if any). */
export function replyParts(reply: SolverReply): Part[] {
  const parts: Part[] = [];
  if (reply.text !== undefined && reply.text !== "") parts.push(textPart(reply.text));
  if (reply.data !== undefined) parts.push(dataPart(reply.data));
  if (parts.length === 0) parts.push(textPart(""));
  return parts;
}

/** The `response` artifact's metadata: the solver's facts plus `usage` (undefined when there are none). */
export function replyMetadata(reply: SolverReply): Record<string, unknown> | undefined {
  if (reply.metadata === undefined && reply.usage === undefined) return undefined;
  return { ...reply.metadata, ...(reply.usage ? { [USAGE_METADATA_KEY]: reply.usage } : {}) };
}

export class PurpleExecutor implements DirectBlockingExecutor {
  private readonly running = new Map<string, { controller: AbortController; contextId: string }>();

  constructor(
    private readonly solver: Solver,
    private readonly logger: Logger,
  ) {}

  /** A blocking send of a new task (blocking-send.ts): the final task, published by nobody. */
  executeBlocking = async (ctx: RequestContext): Promise<Task> => {
    const controller = new AbortController();
    this.running.set(ctx.taskId, { controller, contextId: ctx.contextId });
    const steps = this.steps(ctx);
    try {
      const artifact = await this.answer(ctx, controller.signal);
      return steps.finalTask(steps.status(TaskState.TASK_STATE_COMPLETED), [artifact]);
    } catch (err) {
      return steps.finalTask(this.failedStatus(steps, ctx, err), []);
    } finally {
      this.running.delete(ctx.taskId);
    }
  };

  execute = async (ctx: RequestContext, bus: ExecutionEventBus): Promise<void> => {
    const ids = { taskId: ctx.taskId, contextId: ctx.contextId };
    const controller = new AbortController();
    this.running.set(ctx.taskId, { controller, contextId: ctx.contextId });
    const steps = this.steps(ctx);
    const update = (s: TaskStatus) => AgentEvent.statusUpdate({ ...ids, status: s, metadata: undefined });
    const oneEvent = isBlockingSend(ctx);
    try {
      if (!oneEvent) {
        bus.publish(submittedTaskEvent(ctx));
        bus.publish(update(steps.ready));
      }
      const artifact = await this.answer(ctx, controller.signal);
      if (controller.signal.aborted) return; // cancelTask published CANCELED
      if (oneEvent) {
        bus.publish(AgentEvent.task(steps.finalTask(steps.status(TaskState.TASK_STATE_COMPLETED), [artifact])));
        return;
      }
      bus.publish(AgentEvent.artifactUpdate({ ...ids, artifact, append: false, lastChunk: true, metadata: undefined }));
      bus.publish(update(steps.status(TaskState.TASK_STATE_COMPLETED)));
    } catch (err) {
      if (controller.signal.aborted) return;
      const failed = this.failedStatus(steps, ctx, err);
      bus.publish(oneEvent ? AgentEvent.task(steps.finalTask(failed, [])) : update(failed));
    } finally {
      this.running.delete(ctx.taskId);
      bus.finished();
    }
  };

  /** The statuses and final task of one execution: the user's message, "ready", then the end. */
  private steps(ctx: RequestContext) {
    const ids = { taskId: ctx.taskId, contextId: ctx.contextId };
    const status = (state: TaskState, text?: string): TaskStatus => ({
      state,
      message: text === undefined ? undefined : agentMessage([textPart(text)], ids),
      timestamp: new Date().toISOString(),
    });
    const ready = status(TaskState.TASK_STATE_WORKING, "ready");
    const finalTask = (end: TaskStatus, artifacts: Artifact[]): Task => ({
      id: ctx.taskId,
      contextId: ctx.contextId,
      status: end,
      artifacts,
      history: [ctx.userMessage, ready.message!, ...(end.message ? [end.message] : [])],
      metadata: undefined,
    });
    return { status, ready, finalTask };
  }

  /** Ask the solver; the `response` artifact of its reply. */
  private async answer(ctx: RequestContext, signal: AbortSignal): Promise<Artifact> {
    const msg = ctx.userMessage;
    const reply = await this.solver.solve(
      { text: joinedText(msg.parts), data: firstData(msg.parts), metadata: msg.metadata, contextId: ctx.contextId },
      signal,
    );
    return {
      artifactId: randomUUID(),
      name: reply.artifactName ?? "response",
      description: `${this.solver.mode} reply`,
      parts: replyParts(reply),
      metadata: replyMetadata(reply),
      extensions: [],
    };
  }

  /** FAILED with the reason; what the failed answer still cost travels with it (the runner records it like an answer's). */
  private failedStatus(steps: ReturnType<PurpleExecutor["steps"]>, ctx: RequestContext, err: unknown): TaskStatus {
    this.logger.warn({ err: errorMessage(err), taskId: ctx.taskId }, "solver failed");
    const failed = steps.status(TaskState.TASK_STATE_FAILED, `solver ${this.solver.mode} failed: ${errorMessage(err)}`);
    const usage = usageOfError(err);
    if (usage && failed.message) failed.message.metadata = { [USAGE_METADATA_KEY]: usage };
    return failed;
  }

  cancelTask = (taskId: string, bus: ExecutionEventBus): Promise<void> =>
    promiseFrom(() => this.cancelNow(taskId, bus));

  private cancelNow(taskId: string, bus: ExecutionEventBus): void {
    const job = this.running.get(taskId);
    if (!job) return;
    job.controller.abort();
    bus.publish(
      AgentEvent.statusUpdate({
        taskId,
        contextId: job.contextId,
        status: {
          state: TaskState.TASK_STATE_CANCELED,
          message: agentMessage([textPart("canceled")], { taskId, contextId: job.contextId }),
          timestamp: new Date().toISOString(),
        },
        metadata: undefined,
      }),
    );
  }
}
