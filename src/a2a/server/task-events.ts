/**
 * Task-level events both executors publish. The SDK requires the first event
 * of an execution to be the task itself.
 */
import { TaskState } from "@a2a-js/sdk";
import { AgentEvent, type RequestContext } from "@a2a-js/sdk/server";

/** The `submitted` task event that opens an execution, with the user's message as history. */
export function submittedTaskEvent(ctx: RequestContext): ReturnType<typeof AgentEvent.task> {
  return AgentEvent.task({
    id: ctx.taskId,
    contextId: ctx.contextId,
    status: { state: TaskState.TASK_STATE_SUBMITTED, message: undefined, timestamp: new Date().toISOString() },
    artifacts: [],
    history: [ctx.userMessage],
    metadata: undefined,
  });
}
