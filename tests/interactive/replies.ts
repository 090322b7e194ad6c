/** Builders of participant replies (A2A 1.0 Task / Message objects) for the interactive tests. */
import { randomUUID } from "node:crypto";
import { Role, TaskState, type Message, type Part, type Task } from "@a2a-js/sdk";
import { dataPart, textPart } from "../../src/a2a/shared/parts.js";

export { dataPart, textPart };

export interface TaskReplyOptions {
  state?: TaskState;
  /** Parts of the final status message (none: no status message). */
  status?: Part[];
  /** One parts list per artifact. */
  artifacts?: Part[][];
  contextId?: string;
  id?: string;
  /** Metadata of the first artifact (e.g. `{usage: {...}}`). */
  artifactMetadata?: Record<string, unknown>;
}

function agentMsg(
  parts: Part[],
  ids: { contextId: string; taskId: string },
  metadata?: Record<string, unknown>,
): Message {
  return {
    messageId: randomUUID(),
    contextId: ids.contextId,
    taskId: ids.taskId,
    role: Role.ROLE_AGENT,
    parts,
    metadata,
    extensions: [],
    referenceTaskIds: [],
  };
}

export function taskReply(o: TaskReplyOptions = {}): Task {
  const ids = { contextId: o.contextId ?? "ctx-1", taskId: o.id ?? randomUUID() };
  return {
    id: ids.taskId,
    contextId: ids.contextId,
    status: {
      state: o.state ?? TaskState.TASK_STATE_COMPLETED,
      message: o.status ? agentMsg(o.status, ids) : undefined,
      timestamp: new Date().toISOString(),
    },
    artifacts: (o.artifacts ?? []).map((parts, i) => ({
      artifactId: `a${i}`,
      name: "response",
      description: "",
      parts,
      metadata: i === 0 ? o.artifactMetadata : undefined,
      extensions: [],
    })),
    history: [],
    metadata: undefined,
  };
}

export function messageReply(parts: Part[], contextId = "ctx-1"): Message {
  return agentMsg(parts, { contextId, taskId: "" });
}

/** A completed task whose artifact holds `value` as JSON text. */
export function jsonTask(value: unknown, o: TaskReplyOptions = {}): Task {
  return taskReply({ ...o, artifacts: [[textPart(JSON.stringify(value))]] });
}
