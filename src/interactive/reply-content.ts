/**
 * What a participant's reply (the Task or Message a blocking send returns)
 * holds for the episode: its state, its ids, the texts and DataParts that may
 * carry the action, and the usage it reports.
 *
 * Purples put their answer in the task's final status message, in an
 * artifact, or in both (the same JSON twice); RDI's green joins the status
 * message's text with every artifact's. Here each source stays apart (one
 * text per source, its TextParts joined by newlines; each DataPart on its own)
 * so the decoder can read the answer from any of them and drop duplicates.
 * An artifact's name is kept beside its text: AgentSWE's purples send the
 * action as the artifact's name and the raw command or diff as its text.
 */
import { type Message, type Part, type Task } from "@a2a-js/sdk";
import { addUsage, usageFromMetadata, type TokenUsage } from "../a2a/shared/usage.js";
import { taskStateName } from "../a2a/shared/task-state-name.js";

/** The reply's state: a task's (v0.3 names), or `message` for a direct message. */
export type ReplyState =
  | "message"
  | "completed"
  | "input-required"
  | "failed"
  | "rejected"
  | "canceled"
  | "auth-required"
  | "submitted"
  | "working"
  | "unknown";

export interface ReplyContent {
  state: ReplyState;
  /** The conversation the participant put the reply in ("" when it named none). */
  contextId: string;
  /** The task's id ("" for a direct message). */
  taskId: string;
  /** One text per source (status message, each artifact, the message), its TextParts joined; blank ones left out. */
  texts: string[];
  /** Every DataPart's value, in order. */
  data: unknown[];
  /** Each named artifact's name and text (the same text is in `texts` too); blank ones left out. */
  named: { name: string; text: string }[];
  /** Token usage the reply's metadata reports (artifacts, status message, message), summed. */
  usage?: TokenUsage;
}

/** Adds the source's text (when not blank) and DataParts; returns its text. */
function addSource(parts: readonly Part[], texts: string[], data: unknown[]): string {
  const own: string[] = [];
  for (const p of parts) {
    if (p.content?.$case === "text") own.push(p.content.value);
    else if (p.content?.$case === "data") data.push(p.content.value);
  }
  const text = own.join("\n");
  if (text.trim() !== "") texts.push(text);
  return text;
}

/** True when `result` is a Message (a Task has `status`, a Message `role` and `parts`). */
export function isMessage(result: Message | Task): result is Message {
  return "parts" in result && "role" in result;
}

/** The content of a blocking send's result. */
export function replyContent(result: Message | Task): ReplyContent {
  const texts: string[] = [];
  const data: unknown[] = [];
  if (isMessage(result)) {
    addSource(result.parts, texts, data);
    const usage = usageFromMetadata(result.metadata);
    const reply = { state: "message" as const, contextId: result.contextId, taskId: "", texts, data, named: [] };
    return { ...reply, ...(usage ? { usage } : {}) };
  }
  let usage: TokenUsage | undefined;
  if (result.status?.message) {
    addSource(result.status.message.parts, texts, data);
    usage = addUsage(usage, usageFromMetadata(result.status.message.metadata));
  }
  const named: { name: string; text: string }[] = [];
  for (const artifact of result.artifacts ?? []) {
    const text = addSource(artifact.parts, texts, data);
    if (artifact.name && text.trim() !== "") named.push({ name: artifact.name, text });
    usage = addUsage(usage, usageFromMetadata(artifact.metadata));
  }
  const state: ReplyState = taskStateName(result.status?.state);
  return { state, contextId: result.contextId, taskId: result.id, texts, data, named, ...(usage ? { usage } : {}) };
}
