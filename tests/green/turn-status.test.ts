/**
 * An interactive run streams one `turn` runner event per command: the green agent relays each as
 * a short `working` status (`$ <command>`), and the task's stored history stays bounded however
 * many turns stream through it.
 */
import { afterEach, describe, expect, test } from "vitest";
import { TaskState } from "@a2a-js/sdk";
import { createA2AClient } from "../../src/a2a/client/client.js";
import { partData, partText } from "../../src/a2a/shared/parts.js";
import { MAX_WORKING_STATUSES_KEPT } from "../../src/green/executor.js";
import { collect } from "../a2a/helpers.js";
import { assessment, fixtureRunner, requestOf, startGreen, type StartedGreen } from "./helpers.js";

let green: StartedGreen | undefined;
afterEach(async () => {
  await green?.close();
  green = undefined;
});

describe("turn statuses", () => {
  test("300 turns stream as `$ <command>` working statuses; the stored history keeps a bounded number", async () => {
    green = await startGreen(fixtureRunner("turns.mjs"));
    const client = await createA2AClient(green.url);
    const events = await collect(client.sendMessageStream(requestOf(assessment())));
    const turns = events.flatMap((e) => {
      if (e.payload?.$case !== "statusUpdate") return [];
      const parts = e.payload.value.status?.message?.parts ?? [];
      const data = parts.map(partData).find(Boolean);
      return data?.["event"] === "turn" ? [{ text: parts.map(partText).join(""), data }] : [];
    });
    expect(turns).toHaveLength(300);
    expect(turns[0]).toMatchObject({ text: "$ echo 1", data: { task_id: "item-0", turn: 1 } });
    expect(turns.at(-1)).toMatchObject({ text: "$ echo 300", data: { turn: 300 } });
    const taskId = events[0]?.payload?.$case === "task" ? events[0].payload.value.id : "";
    const task = await client.getTask({ tenant: "", id: taskId, historyLength: undefined });
    expect(task.status?.state).toBe(TaskState.TASK_STATE_COMPLETED);
    const history = task.history ?? [];
    // The request, at most MAX working statuses, and the final status message.
    expect(history.length).toBeLessThanOrEqual(MAX_WORKING_STATUSES_KEPT + 2);
    expect(history.length).toBeGreaterThan(MAX_WORKING_STATUSES_KEPT / 2);
    expect(history.at(-1)?.parts.map(partText).join("")).not.toMatch(/^\$ echo/);
  });
});
