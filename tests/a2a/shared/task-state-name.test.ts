import { describe, expect, test } from "vitest";
import { TaskState } from "@a2a-js/sdk";
import { taskStateName } from "../../../src/a2a/shared/task-state-name.js";

describe("taskStateName", () => {
  test("each SDK task state has its wire name; none, UNSPECIFIED or an unknown number is unknown", () => {
    const states: [TaskState, string][] = [
      [TaskState.TASK_STATE_SUBMITTED, "submitted"],
      [TaskState.TASK_STATE_WORKING, "working"],
      [TaskState.TASK_STATE_INPUT_REQUIRED, "input-required"],
      [TaskState.TASK_STATE_COMPLETED, "completed"],
      [TaskState.TASK_STATE_CANCELED, "canceled"],
      [TaskState.TASK_STATE_FAILED, "failed"],
      [TaskState.TASK_STATE_REJECTED, "rejected"],
      [TaskState.TASK_STATE_AUTH_REQUIRED, "auth-required"],
    ];
    for (const [state, name] of states) expect(taskStateName(state)).toBe(name);
    expect(taskStateName(undefined)).toBe("unknown");
    expect(taskStateName(TaskState.TASK_STATE_UNSPECIFIED)).toBe("unknown");
    expect(taskStateName(999 as TaskState)).toBe("unknown");
  });
});
