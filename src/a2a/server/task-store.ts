/**
 * The agents' task store: the SDK's in-memory semantics (tasks scoped by
 * tenant and owner, copies in and out, `tasks/list` filtering, order and
 * page tokens), but bounded. The SDK's InMemoryTaskStore keeps every task
 * forever, so an agent left running grows without limit: each green
 * assessment keeps its bundle artifact, each purple request its messages.
 * Here finished tasks (completed, failed, canceled, rejected) beyond
 * `maxFinishedTasks` are dropped, oldest first; unfinished ones are always
 * kept. A dropped task answers `tasks/get` with "task not found", as an
 * unknown id does.
 */
import { TaskState, type ListTasksRequest, type ListTasksResponse, type Task } from "@a2a-js/sdk";
import { resolveUserScope, type ServerCallContext, type TaskStore } from "@a2a-js/sdk/server";
import { RequestMalformedError } from "@a2a-js/sdk/errors";
import { plainCopy } from "../../util/plain-copy.js";
import { promiseFrom } from "../../util/promise-from.js";

/** Finished tasks kept per agent by default (newest first). */
export const DEFAULT_MAX_FINISHED_TASKS = 1000;
/** `tasks/list` page size when the request gives none (as the SDK). */
const DEFAULT_PAGE_SIZE = 50;

const FINISHED: ReadonlySet<TaskState> = new Set([
  TaskState.TASK_STATE_COMPLETED,
  TaskState.TASK_STATE_FAILED,
  TaskState.TASK_STATE_CANCELED,
  TaskState.TASK_STATE_REJECTED,
]);

/** Whether a task is in a terminal state (nothing more will happen to it). */
export function isFinished(task: Task): boolean {
  return task.status !== undefined && FINISHED.has(task.status.state);
}

export class BoundedTaskStore implements TaskStore {
  /** scope (tenant + owner) → task id → stored copy. */
  private readonly scopes = new Map<string, Map<string, Task>>();
  /** Finished tasks in the order they finished: key → where they live. */
  private readonly finished = new Map<string, { scope: string; id: string }>();

  /** @param maxFinishedTasks finished tasks kept (≥ 1); default {@link DEFAULT_MAX_FINISHED_TASKS}. */
  constructor(private readonly maxFinishedTasks: number = DEFAULT_MAX_FINISHED_TASKS) {
    if (!Number.isInteger(maxFinishedTasks) || maxFinishedTasks < 1) {
      throw new RangeError(`maxFinishedTasks must be an integer >= 1, got ${maxFinishedTasks}`);
    }
  }

  /** Tasks held now, all scopes (for tests and health figures). */
  get size(): number {
    let n = 0;
    for (const tasks of this.scopes.values()) n += tasks.size;
    return n;
  }

  load(taskId: string, context: ServerCallContext): Promise<Task | undefined> {
    return promiseFrom(() => {
      const task = this.scopes.get(scopeOf(context))?.get(taskId);
      return task ? plainCopy(task) : undefined;
    });
  }

  /**
   * The stored task itself, not a copy: for a reader that only encodes it for
   * an answer, at once (the SDK's `tasks/get` path). Nothing may change it or
   * keep it: a save replaces the stored object rather than changing it, so a
   * view taken before a save stays as it was.
   */
  view(taskId: string, context: ServerCallContext): Readonly<Task> | undefined {
    return this.scopes.get(scopeOf(context))?.get(taskId);
  }

  save(task: Task, context: ServerCallContext): Promise<void> {
    return promiseFrom(() => this.saveNow(task, context));
  }

  private saveNow(task: Task, context: ServerCallContext): void {
    const scope = scopeOf(context);
    let tasks = this.scopes.get(scope);
    if (!tasks) {
      tasks = new Map();
      this.scopes.set(scope, tasks);
    }
    tasks.set(task.id, plainCopy(task));
    const key = `${scope}\u0000${task.id}`;
    this.finished.delete(key);
    if (isFinished(task)) {
      this.finished.set(key, { scope, id: task.id });
      this.evict();
    }
  }

  list(params: ListTasksRequest, context: ServerCallContext): Promise<ListTasksResponse> {
    return promiseFrom(() => this.listNow(params, context));
  }

  private listNow(params: ListTasksRequest, context: ServerCallContext): ListTasksResponse {
    const pageSize = params.pageSize ?? DEFAULT_PAGE_SIZE;
    let tasks = [...(this.scopes.get(scopeOf(context))?.values() ?? [])];
    if (params.contextId) tasks = tasks.filter((t) => t.contextId === params.contextId);
    if (params.status !== undefined && params.status !== TaskState.TASK_STATE_UNSPECIFIED) {
      tasks = tasks.filter((t) => t.status?.state === params.status);
    }
    if (params.statusTimestampAfter) {
      // 1.0 proto ListTasksRequest.status_timestamp_after: "greater than or equal to this value".
      const after = new Date(params.statusTimestampAfter).getTime();
      tasks = tasks.filter((t) => t.status?.timestamp !== undefined && new Date(t.status.timestamp).getTime() >= after);
    }
    // Newest status first, ties by id (descending), as the SDK's store orders them.
    tasks.sort((a, b) => {
      const ta = a.status?.timestamp ?? "";
      const tb = b.status?.timestamp ?? "";
      return ta !== tb ? tb.localeCompare(ta) : b.id.localeCompare(a.id);
    });
    const totalSize = tasks.length;
    if (params.pageToken) {
      const cursor = decodePageToken(params.pageToken);
      const at = tasks.findIndex((t) => (t.status?.timestamp ?? "") === cursor.timestamp && t.id === cursor.id);
      tasks = at === -1 ? [] : tasks.slice(at + 1);
    }
    const page = tasks.slice(0, pageSize);
    const last = page[page.length - 1];
    return {
      tasks: page.map((t) => {
        const copy = plainCopy(t);
        if (!params.includeArtifacts) copy.artifacts = [];
        return copy;
      }),
      nextPageToken: last && tasks.length > page.length ? encodePageToken(last.status?.timestamp ?? "", last.id) : "",
      pageSize,
      totalSize,
    };
  }

  private evict(): void {
    for (const [key, where] of this.finished) {
      if (this.finished.size <= this.maxFinishedTasks) return;
      this.finished.delete(key);
      const tasks = this.scopes.get(where.scope);
      tasks?.delete(where.id);
      if (tasks?.size === 0) this.scopes.delete(where.scope);
    }
  }
}

function scopeOf(context: ServerCallContext): string {
  return `${context.tenant ?? ""}\u0000${resolveUserScope(context)}`;
}

function encodePageToken(timestamp: string, id: string): string {
  return Buffer.from(`${timestamp}|${id}`).toString("base64");
}

function decodePageToken(token: string): { timestamp: string; id: string } {
  const [timestamp = "", ...id] = Buffer.from(token, "base64").toString("utf8").split("|");
  if (id.length === 0) throw new RequestMalformedError("Invalid page token format.");
  return { timestamp, id: id.join("|") };
}
