/**
 * A task state by its wire name (the v0.3 JSON names: `completed`, `input-required`, ...), the
 * names people read in logs and reports. The SDK's 1.0 enum is numeric; every place that shows or
 * records a state asks here.
 */
import { TaskState } from "@a2a-js/sdk";

export type TaskStateName =
  | "submitted"
  | "working"
  | "input-required"
  | "completed"
  | "canceled"
  | "failed"
  | "rejected"
  | "auth-required"
  | "unknown";

const NAMES: Partial<Record<TaskState, TaskStateName>> = {
  [TaskState.TASK_STATE_SUBMITTED]: "submitted",
  [TaskState.TASK_STATE_WORKING]: "working",
  [TaskState.TASK_STATE_INPUT_REQUIRED]: "input-required",
  [TaskState.TASK_STATE_COMPLETED]: "completed",
  [TaskState.TASK_STATE_CANCELED]: "canceled",
  [TaskState.TASK_STATE_FAILED]: "failed",
  [TaskState.TASK_STATE_REJECTED]: "rejected",
  [TaskState.TASK_STATE_AUTH_REQUIRED]: "auth-required",
};

/** The wire name of an SDK task state; `unknown` for none or one this table does not name. */
export function taskStateName(state: TaskState | undefined): TaskStateName {
  return state === undefined ? "unknown" : (NAMES[state] ?? "unknown");
}
