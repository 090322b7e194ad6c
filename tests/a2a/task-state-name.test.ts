import { describe, expect, test } from "vitest";
import { TaskState } from "@a2a-js/sdk";
import { taskStateName } from "../../src/a2a/task-state-name.js";

describe("taskStateName", () => {
  test("every SDK task state but UNSPECIFIED has its wire name; none, or an unknown number, is unknown", () => {
    expect(taskStateName(TaskState.TASK_STATE_COMPLETED)).toBe("completed");
    expect(taskStateName(TaskState.TASK_STATE_INPUT_REQUIRED)).toBe("input-required");
    expect(taskStateName(TaskState.TASK_STATE_AUTH_REQUIRED)).toBe("auth-required");
    const named = Object.values(TaskState)
      .filter((v) => typeof v === "number")
      .map((v) => v as TaskState)
      .filter((v) => v !== TaskState.TASK_STATE_UNSPECIFIED && v >= 0)
      .map(taskStateName);
    expect(named).not.toContain("unknown");
    expect(taskStateName(undefined)).toBe("unknown");
    expect(taskStateName(TaskState.TASK_STATE_UNSPECIFIED)).toBe("unknown");
    expect(taskStateName(999 as TaskState)).toBe("unknown");
  });
});
