/**
 * Two other teams' greens as they talk to a purple, written from the facts of their public code (their
 * messenger modules): RDI's Terminal-Bench green (RDI-Foundation/terminal-bench-green, `src/messenger.py`,
 * `src/agent.py`) and AgentSWE's green (zaidishahbaz/green-agent, `src/messenger.py`). Both use the Python
 * a2a-sdk 0.3 client: one TextPart per message, the first without a contextId and each later one in the
 * context the purple answered with. What they read back is the LAST event's task: its state must be
 * `completed` (else they raise), and the reply is the status message's parts followed by every artifact's
 * parts, concatenated with no separator between the two (TextParts as their text, DataParts as
 * `json.dumps(data, indent=2)`, parts of one message joined by a newline).
 *
 * - RDI's Terminal-Bench green streams (`message/stream`) and `json.loads` the reply: `kind` `final` ends
 *   the episode, `exec_request` needs a non-empty string `command` and, if present, an integer `timeout`;
 *   a reply that is not JSON counts as `final`. Its messages are `json.dumps` of `{"kind": "task",
 *   "protocol": "terminal-bench-shell-v1", "instruction"}` and `{"kind": "exec_result", "exit_code",
 *   "stdout", "stderr"}`.
 * - AgentSWE's green sends blocking (`message/send`) and reads the action from the LAST artifact's name.
 */
import { TaskState, type Artifact, type Part, type Task, type TaskStatus } from "@a2a-js/sdk";
import { createA2AClient } from "../../../src/a2a/client/client.js";
import { partData, partText, textPart, userMessage } from "../../../src/a2a/shared/parts.js";

/** What one of these greens gets back from one message. */
export interface GreenRead {
  /** The last task's state name as the Python SDK spells it (`completed`, ...). */
  status: string;
  /** The reply text as they join it. */
  response: string;
  /** AgentSWE: the last artifact's name. */
  action: string;
  contextId: string;
}

/** Python's `json.dumps(obj)`: separators `", "` and `": "`, non-ASCII escaped. */
export function pyDumps(value: unknown): string {
  if (value === null) return "null";
  if (Array.isArray(value)) return `[${value.map(pyDumps).join(", ")}]`;
  if (typeof value === "object") {
    return `{${Object.entries(value as Record<string, unknown>)
      .map(([k, v]) => `${pyString(k)}: ${pyDumps(v)}`)
      .join(", ")}}`;
  }
  if (typeof value === "string") return pyString(value);
  return JSON.stringify(value);
}

function pyString(s: string): string {
  return JSON.stringify(s).replace(/[\u007f-\uffff]/g, (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, "0")}`);
}

/** Their merge_parts: text as is, data as json.dumps(indent=2), joined by newlines. */
function mergeParts(parts: readonly Part[]): string {
  return parts
    .map((p) => partText(p) ?? (partData(p) !== undefined ? JSON.stringify(partData(p), null, 2) : undefined))
    .filter((s): s is string => s !== undefined)
    .join("\n");
}

const STATE_NAMES: Record<number, string> = {
  [TaskState.TASK_STATE_SUBMITTED]: "submitted",
  [TaskState.TASK_STATE_WORKING]: "working",
  [TaskState.TASK_STATE_COMPLETED]: "completed",
  [TaskState.TASK_STATE_FAILED]: "failed",
  [TaskState.TASK_STATE_CANCELED]: "canceled",
  [TaskState.TASK_STATE_INPUT_REQUIRED]: "input-required",
  [TaskState.TASK_STATE_REJECTED]: "rejected",
  [TaskState.TASK_STATE_AUTH_REQUIRED]: "auth-required",
};

function readTask(task: Task): GreenRead {
  const status = task.status?.message ? mergeParts(task.status.message.parts) : "";
  const artifacts = task.artifacts.map((a) => mergeParts(a.parts)).join("");
  return {
    status: STATE_NAMES[task.status?.state ?? -1] ?? "unknown",
    response: status + artifacts,
    action: task.artifacts.at(-1)?.name ?? "",
    contextId: task.contextId,
  };
}

/** A conversation as one of these greens holds it: each message a new task in the purple's context. */
export interface OtherGreen {
  send(text: string): Promise<GreenRead>;
}

/** The client-side task as the Python SDK's task manager builds it from a stream's events. */
function aggregate(events: unknown[]): Task {
  let task: Task | undefined;
  for (const ev of events as Array<{ payload?: { $case: string; value: unknown } }>) {
    const p = ev.payload;
    if (!p) continue;
    if (p.$case === "task") task = structuredClone(p.value as Task);
    else if (p.$case === "statusUpdate") {
      const u = p.value as { taskId: string; contextId: string; status?: TaskStatus };
      task ??= {
        id: u.taskId,
        contextId: u.contextId,
        status: undefined,
        artifacts: [],
        history: [],
        metadata: undefined,
      };
      task.status = u.status;
    } else if (p.$case === "artifactUpdate") {
      const u = p.value as { taskId: string; contextId: string; artifact?: Artifact; append: boolean };
      task ??= {
        id: u.taskId,
        contextId: u.contextId,
        status: undefined,
        artifacts: [],
        history: [],
        metadata: undefined,
      };
      const same = task.artifacts.find((a) => a.artifactId === u.artifact?.artifactId);
      if (same && u.append) same.parts.push(...(u.artifact?.parts ?? []));
      else if (same) Object.assign(same, u.artifact);
      else if (u.artifact) task.artifacts.push(structuredClone(u.artifact));
    }
  }
  if (!task) throw new Error("the stream ended without a task");
  return task;
}

/** A green that sends over the 0.3 wire, streaming (RDI's Terminal-Bench green) or blocking (AgentSWE's). */
export async function otherGreen(url: string, streaming: boolean): Promise<OtherGreen> {
  const client = await createA2AClient(url, "0.3");
  let contextId: string | undefined;
  return {
    async send(text) {
      const request = {
        tenant: "",
        message: userMessage([textPart(text)], contextId !== undefined ? { contextId } : {}),
        configuration: undefined,
        metadata: undefined,
      };
      let task: Task;
      if (streaming) {
        const events: unknown[] = [];
        for await (const ev of client.sendMessageStream(request)) events.push(ev);
        task = aggregate(events);
      } else task = (await client.sendMessage(request)) as Task;
      const read = readTask(task);
      if (read.status !== "completed") throw new Error(`the purple responded with: ${JSON.stringify(read)}`);
      contextId = read.contextId;
      return read;
    },
  };
}

/** RDI's `_decode_protocol_message`: JSON object, or `final` with the text as output when not JSON. */
export function rdiDecode(response: string): Record<string, unknown> {
  let payload: unknown;
  try {
    payload = JSON.parse(response);
  } catch {
    return { kind: "final", output: response };
  }
  if (typeof payload !== "object" || payload === null || Array.isArray(payload))
    throw new Error(`Expected JSON object payload, got: ${response}`);
  return payload as Record<string, unknown>;
}

/** The checks RDI's loop makes of an exec_request before running it; the command. */
export function rdiCommand(payload: Record<string, unknown>): { command: string; timeout: number } {
  if (payload["kind"] !== "exec_request") throw new Error(`Unexpected agent payload: ${JSON.stringify(payload)}`);
  const command = payload["command"];
  if (typeof command !== "string" || command.trim() === "")
    throw new Error(`Invalid exec_request: ${JSON.stringify(payload)}`);
  const timeout = payload["timeout"] ?? 30;
  if (!Number.isInteger(timeout)) throw new Error(`Invalid timeout in exec_request: ${JSON.stringify(payload)}`);
  return { command, timeout: Math.max(1, Math.min(timeout as number, 300)) };
}
