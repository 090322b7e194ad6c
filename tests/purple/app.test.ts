import { afterEach, describe, expect, test } from "vitest";
import { TaskState, type Task } from "@a2a-js/sdk";
import { createPurpleApp } from "../../src/purple/app.js";
import { createSolver, SOLVERS } from "../../src/purple/solvers/index.js";
import { replyParts } from "../../src/purple/executor.js";
import { createA2AClient, type WireVersion } from "../../src/a2a/client.js";
import { dataPart, partData, partText, textPart, userMessage } from "../../src/a2a/parts.js";
import { collect, serveOnLoopback } from "../a2a/helpers.js";
import type { ServedApp } from "../../src/a2a/serve.js";

let served: ServedApp | undefined;
afterEach(async () => {
  await served?.close();
  served = undefined;
});

describe.each<WireVersion>(["1.0", "0.3"])("purple echo over the %s wire", (wire) => {
  test("send: working 'ready', artifact response {ok, echo}, completed", async () => {
    const s = await serveOnLoopback(async (card) => createPurpleApp({ card, solver: await createSolver("echo") }));
    served = s;
    const client = await createA2AClient(s.url, wire);
    const task = (await client.sendMessage({ tenant: "", message: userMessage([textPart("ping")]), configuration: undefined, metadata: undefined })) as Task;
    expect(task.status?.state).toBe(TaskState.TASK_STATE_COMPLETED);
    const art = task.artifacts.find((a) => a.name === "response")!;
    expect(partData(art.parts[0]!)).toEqual({ ok: true, echo: "ping" });
    const events = await collect(client.sendMessageStream({ tenant: "", message: userMessage([dataPart({ task_id: "t1" })]), configuration: undefined, metadata: undefined }));
    const kinds = events.map((e) => e.payload?.$case);
    expect(kinds).toEqual(["task", "statusUpdate", "artifactUpdate", "statusUpdate"]);
    const ready = events[1]!.payload!.$case === "statusUpdate" ? events[1]!.payload!.value : undefined;
    expect(ready?.status?.state).toBe(TaskState.TASK_STATE_WORKING);
    expect(partText(ready!.status!.message!.parts[0]!)).toBe("ready");
    const artifact = events[2]!.payload!.$case === "artifactUpdate" ? events[2]!.payload!.value.artifact : undefined;
    expect(partData(artifact!.parts[0]!)).toEqual({ ok: true, echo: { task_id: "t1" } });
  });
});

describe("solver registry", () => {
  test("unknown modes are usage errors listing the known ones; replies map to text then data", async () => {
    await expect(createSolver("nope")).rejects.toThrow(/unknown mode "nope" \(known: echo/);
    expect(Object.keys(SOLVERS)).toContain("echo");
    const parts = replyParts({ text: "def f(): pass", data: { x: 1 } });
    expect(parts.map((p) => p.content?.$case)).toEqual(["text", "data"]);
  });
});
