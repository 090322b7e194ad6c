/**
 * A request-handler decorator that refuses parameters the SDK lets through but
 * the A2A spec (v0.3.0 §7.1 MessageSendParams, §6.4 Message, §7.3
 * TaskQueryParams; 1.0 §3.3.2 "Servers MUST validate all input parameters",
 * the proto's REQUIRED fields) does not allow, with JSON-RPC -32602 (Invalid
 * params) or HTTP 400 on every binding and wire version alike (1.0 §5.1):
 * - a message with no parts (`parts` is a required, non-empty list of content),
 * - a missing/empty `messageId` (required; the SDK already checks most paths),
 * - a message without a `role` (1.0 proto: `Role role = 4 [REQUIRED]`; the
 *   SDK reads an absent role as ROLE_UNSPECIFIED and runs the task),
 * - a negative `historyLength` (a count of recent messages) on send, GetTask
 *   and ListTasks (the REST binding already refuses it on ListTasks, the
 *   JSON-RPC one did not),
 * - a ListTasks `statusTimestampAfter` that is not an ISO 8601 timestamp
 *   (1.0 §5.6.1; the SDK's `Date.parse` check takes "-1" for 2001-01-01),
 * - a part whose content has the wrong JSON type (§6.5: TextPart.text is a
 *   string, DataPart.data an object), which the SDK stores as it came.
 * Optionally it also asks the agent whether it can take a new task now
 * (`admitNewTask`, e.g. the green agent's bounded queue) and answers a refusal
 * as the JSON-RPC error the hook throws.
 * Protocol logic only: no transport here (the Express adapter mounts it).
 */
import {
  Role,
  type AgentCard,
  type CancelTaskRequest,
  type DeleteTaskPushNotificationConfigRequest,
  type GetExtendedAgentCardRequest,
  type GetTaskPushNotificationConfigRequest,
  type GetTaskRequest,
  type ListTaskPushNotificationConfigsRequest,
  type ListTaskPushNotificationConfigsResponse,
  type ListTasksRequest,
  type ListTasksResponse,
  type Message,
  type SendMessageRequest,
  type StreamResponse,
  type SubscribeToTaskRequest,
  type Task,
  type TaskPushNotificationConfig,
} from "@a2a-js/sdk";
import { RequestMalformedError } from "@a2a-js/sdk/errors";
import type { A2ARequestHandler, ServerCallContext } from "@a2a-js/sdk/server";
import { isIsoTimestamp } from "./timestamp.js";

/** Roles a message may carry (the SDK reads an absent role as ROLE_UNSPECIFIED, an unknown one as -1). */
const MESSAGE_ROLES: ReadonlySet<number> = new Set([Role.ROLE_USER, Role.ROLE_AGENT]);

/** Problems of a send request's params (empty when valid). */
export function sendParamProblems(params: SendMessageRequest): string[] {
  const problems: string[] = [];
  const message = params.message;
  if (!message) return ["message is required"];
  if (!message.messageId) problems.push("message.messageId is required");
  if (!MESSAGE_ROLES.has(message.role)) problems.push("message.role is required (ROLE_USER or ROLE_AGENT)");
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

/** Problems of a ListTasks request's params (empty when valid); page size and status the SDK checks itself. */
export function listTasksParamProblems(params: ListTasksRequest): string[] {
  const problems: string[] = [];
  const hl = params.historyLength;
  if (hl !== undefined && (!Number.isInteger(hl) || hl < 0))
    problems.push(`historyLength must be a non-negative integer, got ${hl}`);
  const after = params.statusTimestampAfter;
  if (after !== undefined && after !== "" && !isIsoTimestamp(after))
    problems.push(
      `statusTimestampAfter must be an ISO 8601 timestamp such as 2025-10-28T10:30:00.000Z, got "${after}"`,
    );
  return problems;
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

  async listTasks(params: ListTasksRequest, context: ServerCallContext): Promise<ListTasksResponse> {
    refuse(listTasksParamProblems(params));
    return this.inner.listTasks(params, context);
  }
}
