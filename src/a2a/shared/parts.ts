/**
 * Builders and readers for A2A 1.0 (protobuf-shaped) messages and parts.
 * Every field of a generated SDK type must be present, so these helpers fill
 * the empty ones; v0.3 JSON exists only on the wire (the SDK translates).
 */
import { randomUUID } from "node:crypto";
import { Role, type Message, type Part } from "@a2a-js/sdk";

/** A TextPart. */
export function textPart(text: string): Part {
  return { content: { $case: "text", value: text }, metadata: undefined, filename: "", mediaType: "text/plain" };
}

/** A DataPart holding a JSON object. */
export function dataPart(data: Record<string, unknown>): Part {
  return { content: { $case: "data", value: data }, metadata: undefined, filename: "", mediaType: "application/json" };
}

/** A message from the agent, tied to a task. */
export function agentMessage(parts: Part[], ids: { taskId: string; contextId: string }): Message {
  return {
    messageId: randomUUID(),
    contextId: ids.contextId,
    taskId: ids.taskId,
    role: Role.ROLE_AGENT,
    parts,
    metadata: undefined,
    extensions: [],
    referenceTaskIds: [],
  };
}

/** A message from the user (clients, tests, the smoke command). */
export function userMessage(parts: Part[], ids: { taskId?: string; contextId?: string } = {}): Message {
  return {
    messageId: randomUUID(),
    contextId: ids.contextId ?? "",
    taskId: ids.taskId ?? "",
    role: Role.ROLE_USER,
    parts,
    metadata: undefined,
    extensions: [],
    referenceTaskIds: [],
  };
}

/** Text of a part, or undefined when it is not a TextPart. */
export function partText(part: Part): string | undefined {
  return part.content?.$case === "text" ? part.content.value : undefined;
}

/** Data of a part when it is a DataPart holding a JSON object, else undefined. */
export function partData(part: Part): Record<string, unknown> | undefined {
  if (part.content?.$case !== "data") return undefined;
  const v: unknown = part.content.value;
  return typeof v === "object" && v !== null && !Array.isArray(v) ? (v as Record<string, unknown>) : undefined;
}

/** All text parts joined by newlines ("" when there are none). */
export function joinedText(parts: readonly Part[]): string {
  return parts
    .map(partText)
    .filter((t): t is string => t !== undefined)
    .join("\n");
}

/** The first DataPart's object, if any. */
export function firstData(parts: readonly Part[]): Record<string, unknown> | undefined {
  for (const p of parts) {
    const d = partData(p);
    if (d) return d;
  }
  return undefined;
}
