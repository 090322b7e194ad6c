/**
 * A request-handler decorator that refuses parameters the SDK lets through but
 * the A2A spec (v0.3.0 §7.1 MessageSendParams, §6.4 Message, §7.3
 * TaskQueryParams) does not allow, with JSON-RPC -32602 (Invalid params) on
 * both wire versions:
 * - a message with no parts (`parts` is a required, non-empty list of content),
 * - a missing/empty `messageId` (required; the SDK already checks most paths),
 * - a negative `historyLength` (a count of recent messages),
 * - a part whose content has the wrong JSON type (§6.5: TextPart.text is a
 *   string, DataPart.data an object), which the SDK stores as it came.
 * Optionally it also asks the agent whether it can take a new task now
 * (`admitNewTask`, e.g. the green agent's bounded queue) and answers a refusal
 * as the JSON-RPC error the hook throws.
 * Protocol logic only: no transport here (the Express adapter mounts it).
 */
import type {
  AgentCard,
  CancelTaskRequest,
  DeleteTaskPushNotificationConfigRequest,
  GetExtendedAgentCardRequest,
  GetTaskPushNotificationConfigRequest,
  GetTaskRequest,
  ListTaskPushNotificationConfigsRequest,
  ListTaskPushNotificationConfigsResponse,
  ListTasksRequest,
  ListTasksResponse,
  Message,
  SendMessageRequest,
  StreamResponse,
  SubscribeToTaskRequest,
  Task,
  TaskPushNotificationConfig,
} from "@a2a-js/sdk";
import { RequestMalformedError } from "@a2a-js/sdk/errors";
import type { A2ARequestHandler, ServerCallContext } from "@a2a-js/sdk/server";

/** Problems of a send request's params (empty when valid). */
export function sendParamProblems(params: SendMessageRequest): string[] {
  const problems: string[] = [];
  const message = params.message;
  if (!message) return ["message is required"];
  if (!message.messageId) problems.push("message.messageId is required");
  if (!Array.isArray(message.parts) || message.parts.length === 0)
    problems.push("message.parts must contain at least one part");
  else
    message.parts.forEach((part, i) => {
      const content = part?.content;
      if (content?.$case === "text" && typeof content.value !== "string")
        problems.push(`message.parts[${i}].text must be a string`);
      if (
        content?.$case === "data" &&
        (typeof content.value !== "object" || content.value === null || Array.isArray(content.value))
      ) {
        problems.push(`message.parts[${i}].data must be an object`);
      }
    });
  const hl = params.configuration?.historyLength;
  if (hl !== undefined && hl < 0) problems.push(`configuration.historyLength must be non-negative, got ${hl}`);
  return problems;
}

/** Problems of a tasks/get request's params (empty when valid). */
export function getTaskParamProblems(params: GetTaskRequest): string[] {
  const hl = params.historyLength;
  return hl !== undefined && hl < 0 ? [`historyLength must be non-negative, got ${hl}`] : [];
}

function refuse(problems: string[]): void {
  if (problems.length > 0) throw new RequestMalformedError(problems.join("; "));
}

/** Throws (an A2A/JSON-RPC error) when a new task cannot be taken now. */
export type AdmitNewTask = () => void;

/** Wraps a request handler; every method delegates after the checks above. */
export class ParamGuardRequestHandler implements A2ARequestHandler {
  constructor(
    private readonly inner: A2ARequestHandler,
    private readonly admitNewTask?: AdmitNewTask,
  ) {}

  private admit(params: SendMessageRequest): void {
    // A message to an existing task continues it; only a new task needs a place.
    if (this.admitNewTask && !params.message?.taskId) this.admitNewTask();
  }

  getAgentCard(): Promise<AgentCard> {
    return this.inner.getAgentCard();
  }

  getAuthenticatedExtendedAgentCard(
    params: GetExtendedAgentCardRequest,
    context: ServerCallContext,
  ): Promise<AgentCard> {
    return this.inner.getAuthenticatedExtendedAgentCard(params, context);
  }

  async sendMessage(params: SendMessageRequest, context: ServerCallContext): Promise<Message | Task> {
    refuse(sendParamProblems(params));
    this.admit(params);
    return this.inner.sendMessage(params, context);
  }

  // Checked inside the generator: the SDK pulls the first event before it
  // commits to SSE, so a refusal here becomes a plain JSON-RPC error response.
  async *sendMessageStream(
    params: SendMessageRequest,
    context: ServerCallContext,
  ): AsyncGenerator<StreamResponse, void, undefined> {
    refuse(sendParamProblems(params));
    this.admit(params);
    yield* this.inner.sendMessageStream(params, context);
  }

  async getTask(params: GetTaskRequest, context: ServerCallContext): Promise<Task> {
    refuse(getTaskParamProblems(params));
    return this.inner.getTask(params, context);
  }

  cancelTask(params: CancelTaskRequest, context: ServerCallContext): Promise<Task> {
    return this.inner.cancelTask(params, context);
  }

  createTaskPushNotificationConfig(
    params: TaskPushNotificationConfig,
    context: ServerCallContext,
  ): Promise<TaskPushNotificationConfig> {
    return this.inner.createTaskPushNotificationConfig(params, context);
  }

  getTaskPushNotificationConfig(
    params: GetTaskPushNotificationConfigRequest,
    context: ServerCallContext,
  ): Promise<TaskPushNotificationConfig> {
    return this.inner.getTaskPushNotificationConfig(params, context);
  }

  listTaskPushNotificationConfigs(
    params: ListTaskPushNotificationConfigsRequest,
    context: ServerCallContext,
  ): Promise<ListTaskPushNotificationConfigsResponse> {
    return this.inner.listTaskPushNotificationConfigs(params, context);
  }

  deleteTaskPushNotificationConfig(
    params: DeleteTaskPushNotificationConfigRequest,
    context: ServerCallContext,
  ): Promise<void> {
    return this.inner.deleteTaskPushNotificationConfig(params, context);
  }

  resubscribe(
    params: SubscribeToTaskRequest,
    context: ServerCallContext,
  ): AsyncGenerator<StreamResponse, void, undefined> {
    return this.inner.resubscribe(params, context);
  }

  listTasks(params: ListTasksRequest, context: ServerCallContext): Promise<ListTasksResponse> {
    return this.inner.listTasks(params, context);
  }
}
