import { afterEach, describe, expect, it } from "vitest";
import { TaskState, type Task } from "@a2a-js/sdk";
import { ServerCallContext } from "@a2a-js/sdk/server";
import { BoundedTaskStore } from "../../../src/a2a/server/task-store.js";
import { createPurpleApp } from "../../../src/purple/app.js";
import { serveOnLoopback } from "../helpers.js";
import type { ServedApp } from "../../../src/a2a/server/serve.js";

const ctx = new ServerCallContext();

function task(id: string, state: TaskState, timestamp = "2026-01-01T00:00:00.000Z", contextId = "c1"): Task {
  return {
    id,
    contextId,
    status: { state, timestamp },
    artifacts: [{ artifactId: "a", parts: [] }],
    history: [],
    metadata: {},
  } as unknown as Task;
}

describe("BoundedTaskStore", () => {
  it("keeps at most maxFinishedTasks finished tasks, dropping the oldest, and never drops unfinished ones", async () => {
    const store = new BoundedTaskStore(2);
    await store.save(task("w", TaskState.TASK_STATE_WORKING), ctx);
    for (const id of ["f1", "f2", "f3"]) await store.save(task(id, TaskState.TASK_STATE_COMPLETED), ctx);
    expect(await store.load("f1", ctx)).toBeUndefined();
    expect((await store.load("f2", ctx))?.id).toBe("f2");
    expect((await store.load("f3", ctx))?.id).toBe("f3");
    expect((await store.load("w", ctx))?.id).toBe("w");
    expect(store.size).toBe(3);
    // The working task finishes: it is now the newest finished one and f2 goes.
    await store.save(task("w", TaskState.TASK_STATE_CANCELED), ctx);
    expect(await store.load("f2", ctx)).toBeUndefined();
    expect((await store.load("w", ctx))?.status?.state).toBe(TaskState.TASK_STATE_CANCELED);
  });

  it("stores and returns copies, so callers cannot change what is stored", async () => {
    const store = new BoundedTaskStore();
    const t = task("x", TaskState.TASK_STATE_WORKING);
    await store.save(t, ctx);
    t.contextId = "changed";
    const loaded = (await store.load("x", ctx))!;
    loaded.contextId = "changed again";
    expect((await store.load("x", ctx))?.contextId).toBe("c1");
  });

  it("lists newest first with filters and page tokens, artifacts only on request", async () => {
    const store = new BoundedTaskStore();
    await store.save(task("a", TaskState.TASK_STATE_COMPLETED, "2026-01-01T00:00:01Z"), ctx);
    await store.save(task("b", TaskState.TASK_STATE_WORKING, "2026-01-01T00:00:02Z"), ctx);
    await store.save(task("c", TaskState.TASK_STATE_COMPLETED, "2026-01-01T00:00:03Z", "c2"), ctx);
    const base = {
      tenant: "",
      contextId: "",
      status: TaskState.TASK_STATE_UNSPECIFIED,
      pageToken: "",
      statusTimestampAfter: undefined,
      includeArtifacts: false,
    };
    const p1 = await store.list({ ...base, pageSize: 2 }, ctx);
    expect(p1.tasks.map((t) => t.id)).toEqual(["c", "b"]);
    expect(p1.totalSize).toBe(3);
    expect(p1.tasks[0]?.artifacts).toEqual([]);
    const p2 = await store.list({ ...base, pageSize: 2, pageToken: p1.nextPageToken }, ctx);
    expect(p2.tasks.map((t) => t.id)).toEqual(["a"]);
    expect(p2.nextPageToken).toBe("");
    expect((await store.list({ ...base, status: TaskState.TASK_STATE_COMPLETED }, ctx)).tasks.map((t) => t.id)).toEqual(
      ["c", "a"],
    );
    expect((await store.list({ ...base, contextId: "c2" }, ctx)).tasks.map((t) => t.id)).toEqual(["c"]);
    expect(
      (await store.list({ ...base, statusTimestampAfter: "2026-01-01T00:00:01.500Z" }, ctx)).tasks.map((t) => t.id),
    ).toEqual(["c", "b"]);
    // 1.0 proto ListTasksRequest.status_timestamp_after: "greater than or equal to this value".
    expect(
      (await store.list({ ...base, statusTimestampAfter: "2026-01-01T00:00:02Z" }, ctx)).tasks.map((t) => t.id),
    ).toEqual(["c", "b"]);
    expect((await store.list({ ...base, includeArtifacts: true }, ctx)).tasks[0]?.artifacts).toHaveLength(1);
    await expect(
      store.list({ ...base, pageToken: Buffer.from("no-separator").toString("base64") }, ctx),
    ).rejects.toThrow(/page token/);
  });

  it("refuses a bound below 1", () => {
    expect(() => new BoundedTaskStore(0)).toThrow(/maxFinishedTasks/);
  });
});

describe("an agent's finished tasks are bounded over HTTP", () => {
  let served: ServedApp | undefined;
  afterEach(async () => {
    await served?.close();
  });

  it("tasks/get finds the newest finished tasks and answers 'not found' for dropped ones", async () => {
    const s = await serveOnLoopback((card) =>
      createPurpleApp({ card, solver: { mode: "echo", solve: async (i) => ({ text: i.text }) }, maxFinishedTasks: 3 }),
    );
    served = s;
    const rpc = async (method: string, params: unknown) => {
      const r = await fetch(s.url, {
        method: "POST",
        headers: { "content-type": "application/json" },
        body: JSON.stringify({ jsonrpc: "2.0", id: 1, method, params }),
      });
      return (await r.json()) as { result?: { id?: string; kind?: string }; error?: { code: number } };
    };
    const ids: string[] = [];
    for (let i = 0; i < 5; i++) {
      const r = await rpc("message/send", {
        message: { kind: "message", role: "user", messageId: `m${i}`, parts: [{ kind: "text", text: `hi ${i}` }] },
      });
      expect(r.result?.kind).toBe("task");
      ids.push(r.result!.id!);
    }
    for (const id of ids.slice(0, 2)) expect((await rpc("tasks/get", { id })).error?.code).toBe(-32001);
    for (const id of ids.slice(2)) expect((await rpc("tasks/get", { id })).result?.id).toBe(id);
  });
});
