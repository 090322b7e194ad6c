/**
 * Which executions serve a blocking `message/send`, and the direct path some of
 * them take. Such a caller sees only the task as it ends (A2A `message/send`
 * with `blocking`, the default: the server answers once the task is terminal or
 * interrupted), never the events that led there, and cannot name the task
 * before the answer arrives.
 *
 * - Any executor may ask {@link isBlockingSend} and publish the final task as
 *   ONE event: every event costs the SDK a task-store load and save, a mapping
 *   to a stream response and a copy of the whole task (for push notifications).
 * - An executor that can compute the final task by itself
 *   ({@link DirectBlockingExecutor}, the purple agent's) skips the SDK's event
 *   bus, event queue and result manager altogether for a blocking send of a new
 *   task: the handler builds the request context as the SDK does (ids, the
 *   message completed with them; no deep copy, see directRequestContext), awaits the
 *   task, stores it (the store keeps its own copy) and answers with the
 *   `historyLength` trimming the SDK applies. What a client sees is the same:
 *   the SDK's result manager would store and return that very task (a message
 *   it never published cannot be cancelled, resubscribed to or looked up before
 *   it is stored, on either path). Sends that continue a task, name reference
 *   tasks, carry a push-notification config or extensions, and agents whose card
 *   requires an extension, go through the SDK as before.
 * Streams and non-blocking sends still get every event. Protocol logic only; no transport here.
 */
import { randomUUID } from "node:crypto";
import {
  Role,
  TaskState,
  type AgentCard,
  type GetTaskRequest,
  type SendMessageRequest,
  type Message,
  type Task,
} from "@a2a-js/sdk";
import {
  DefaultRequestHandler,
  type RequestContext,
  type AgentExecutor,
  type ServerCallContext,
  type TaskStore,
} from "@a2a-js/sdk/server";
import { RequestMalformedError, TaskNotFoundError } from "@a2a-js/sdk/errors";
import { BoundedTaskStore } from "./task-store.js";

/** Call contexts of blocking sends; the SDK hands the same object to the executor's RequestContext. */
const blockingCalls = new WeakSet<ServerCallContext>();

/** True when the execution answers a blocking `message/send` (its events are seen by nobody). */
export function isBlockingSend(ctx: RequestContext): boolean {
  return ctx.context !== undefined && blockingCalls.has(ctx.context);
}

/** An executor that can answer a blocking send of a new task with its final task, publishing nothing. */
export interface DirectBlockingExecutor extends AgentExecutor {
  /** Run to the end and resolve the task as the event sequence would leave it (history, artifacts, status). */
  executeBlocking(ctx: RequestContext): Promise<Task>;
}

function isDirect(executor: AgentExecutor): executor is DirectBlockingExecutor {
  return typeof (executor as Partial<DirectBlockingExecutor>).executeBlocking === "function";
}

/** The SDK's request handler, marking each blocking send's call context and taking the direct path where it can. */
export class BlockingSendAwareRequestHandler extends DefaultRequestHandler {
  private readonly direct: DirectBlockingExecutor | undefined;
  private readonly store: TaskStore;

  constructor(card: AgentCard, store: TaskStore, executor: AgentExecutor) {
    super(card, store, executor);
    this.store = store;
    // The SDK refuses a send that lacks a required extension: such agents keep the SDK's path.
    const requiresExtension = (card.capabilities?.extensions ?? []).some((e) => e.required);
    this.direct = isDirect(executor) && !requiresExtension ? executor : undefined;
  }

  /**
   * `tasks/get` without the store's deep copy: the SDK loads a copy, trims its
   * history and hands it to the transport, which maps it to new wire objects
   * and encodes them; nothing keeps or changes it. A shallow copy with its own
   * `history` array is enough (the only field the SDK reassigns), and the
   * answer is the same. Other stores keep the SDK's path.
   */
  override async getTask(params: GetTaskRequest, context: ServerCallContext): Promise<Task> {
    if (!(this.store instanceof BoundedTaskStore)) return super.getTask(params, context);
    if (!params.id || params.id.trim() === "") throw new RequestMalformedError("Task ID is required");
    const stored = this.store.view(params.id, context);
    if (!stored) throw new TaskNotFoundError(`Task not found: ${params.id}`);
    const history = stored.history ?? [];
    const n = params.historyLength;
    return { ...stored, history: n === undefined ? history.slice() : n <= 0 ? [] : history.slice(-n) };
  }

  override async sendMessage(params: SendMessageRequest, context: ServerCallContext): Promise<Message | Task> {
    // The 0.3 wire's `blocking: false` arrives here converted to `returnImmediately: true`.
    if (params.configuration?.returnImmediately === true) return super.sendMessage(params, context);
    if (this.direct && takesDirectPath(params, context)) return this.sendDirect(this.direct, params, context);
    blockingCalls.add(context);
    return super.sendMessage(params, context);
  }

  private async sendDirect(
    executor: DirectBlockingExecutor,
    params: SendMessageRequest,
    context: ServerCallContext,
  ): Promise<Task> {
    const incoming = params.message!;
    if (!incoming.messageId) throw new RequestMalformedError("message.messageId is required.");
    // As the SDK's _createRequestContext does for a new task.
    const taskId = randomUUID();
    const contextId = incoming.contextId || randomUUID();
    const ctx = directRequestContext({ ...params, message: { ...incoming, contextId, taskId } }, context);
    let task: Task;
    try {
      task = await executor.executeBlocking(ctx);
    } catch (err) {
      task = executionErrorTask(ctx, err);
    }
    // As the SDK's result manager: the user's message leads the history if the executor left it out.
    if (!task.history?.some((m) => m.messageId === incoming.messageId))
      task.history = [incoming, ...(task.history ?? [])];
    await this.store.save(task, context);
    const historyLength = params.configuration?.historyLength;
    if (historyLength !== undefined) task.history = historyLength <= 0 ? [] : task.history.slice(-historyLength);
    return task;
  }
}

/**
 * The executor's view of the call, as the SDK's RequestContext holds it, minus
 * the SDK's deep copy of the request: this request was decoded from the wire for
 * this call alone and is read, not kept, by anyone else (the executor reads the
 * message; the answer is encoded from the task and dropped).
 */
function directRequestContext(request: SendMessageRequest, context: ServerCallContext): RequestContext {
  const message = request.message!;
  return {
    request,
    taskId: message.taskId,
    contextId: message.contextId,
    context,
    get userMessage() {
      return message;
    },
  };
}

/** A blocking send the direct path may answer: a new task, nothing that needs the SDK's bookkeeping. */
function takesDirectPath(params: SendMessageRequest, context: ServerCallContext): boolean {
  const m = params.message;
  return (
    m !== undefined &&
    !m.taskId &&
    (m.referenceTaskIds?.length ?? 0) === 0 &&
    params.configuration?.taskPushNotificationConfig === undefined &&
    (context.requestedExtensions === undefined || context.requestedExtensions.length === 0)
  );
}

/** The failed task the SDK answers when an executor throws (default_request_handler's `_runExecutor`). */
function executionErrorTask(ctx: RequestContext, err: unknown): Task {
  const text = `Agent execution error: ${err instanceof Error ? err.message : String(err)}`;
  return {
    id: ctx.taskId,
    contextId: ctx.contextId,
    status: {
      state: TaskState.TASK_STATE_FAILED,
      message: {
        role: Role.ROLE_AGENT,
        messageId: randomUUID(),
        taskId: ctx.taskId,
        contextId: ctx.contextId,
        parts: [{ content: { $case: "text", value: text }, mediaType: "text/plain", filename: "", metadata: {} }],
        metadata: {},
        extensions: [],
        referenceTaskIds: [],
      },
      timestamp: new Date().toISOString(),
    },
    artifacts: [],
    history: [ctx.userMessage],
    metadata: {},
  };
}
