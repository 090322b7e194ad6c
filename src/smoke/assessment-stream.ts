/**
 * Send one assessment over `message/stream` and follow it to its end:
 * progress callback per status update, final state, every artifact
 * (appended chunks joined), and the evaluation bundle found among them.
 */
import { randomUUID } from "node:crypto";
import { Role, type Part } from "@a2a-js/sdk";
import type { Client } from "@a2a-js/sdk/client";
import { taskStateName, type TaskStateName } from "../a2a/shared/task-state-name.js";

/** The request body AgentBeats sends as the message's text part. */
export interface AssessmentRequest {
  participants: Record<string, string>;
  config: Record<string, unknown>;
}

/** A2A task states by their v0.3 wire names. */
/** A task state by its wire name (the one table: a2a/shared/task-state-name.ts). */
export type WireState = TaskStateName;

/** Wire name of an SDK task state. */
export const stateName = taskStateName;

/** An artifact as collected from the stream. */
export interface CollectedArtifact {
  artifactId: string;
  name: string;
  parts: Part[];
}

export interface StreamOutcome {
  taskId: string | undefined;
  /** Last state seen ("unknown" when the stream ended without one). */
  finalState: WireState;
  /** Text of the last status message (e.g. the reason of a failure). */
  lastStatusText: string | undefined;
  artifacts: CollectedArtifact[];
  /** Number of stream events received. */
  eventCount: number;
}

/** A status update as the progress callback sees it. */
export interface ProgressUpdate {
  state: WireState;
  text: string | undefined;
  /** The status message's DataPart (the green agent's `{event, done, total, passed, ...}`), if any. */
  data?: Record<string, unknown> | undefined;
}

function textOf(parts: readonly Part[] | undefined): string | undefined {
  const texts = (parts ?? []).flatMap((p) => (p.content?.$case === "text" ? [p.content.value] : []));
  return texts.length > 0 ? texts.join("\n") : undefined;
}

function dataOf(parts: readonly Part[] | undefined): Record<string, unknown> | undefined {
  for (const p of parts ?? []) {
    const v = p.content?.$case === "data" ? (p.content.value as unknown) : undefined;
    if (v !== null && typeof v === "object" && !Array.isArray(v)) return v as Record<string, unknown>;
  }
  return undefined;
}

/** Build the user message carrying the request JSON as its text part. */
function requestMessage(request: AssessmentRequest) {
  const part: Part = {
    content: { $case: "text", value: JSON.stringify(request) },
    metadata: undefined,
    filename: "",
    mediaType: "text/plain",
  };
  return {
    messageId: randomUUID(),
    contextId: "",
    taskId: "",
    role: Role.ROLE_USER,
    parts: [part],
    metadata: undefined,
    extensions: [],
    referenceTaskIds: [],
  };
}

/** Send the assessment and consume the whole stream. Rejects on transport errors or abort. */
export async function streamAssessment(
  client: Client,
  request: AssessmentRequest,
  onProgress: (u: ProgressUpdate) => void,
  signal?: AbortSignal,
): Promise<StreamOutcome> {
  const artifacts = new Map<string, CollectedArtifact>();
  const out: StreamOutcome = {
    taskId: undefined,
    finalState: "unknown",
    lastStatusText: undefined,
    artifacts: [],
    eventCount: 0,
  };
  const keep = (a: { artifactId: string; name: string; parts: Part[] }, append: boolean): void => {
    const prev = artifacts.get(a.artifactId);
    if (prev && append) prev.parts.push(...a.parts);
    else artifacts.set(a.artifactId, { artifactId: a.artifactId, name: a.name, parts: [...a.parts] });
  };
  const stream = client.sendMessageStream(
    { tenant: "", message: requestMessage(request), configuration: undefined, metadata: undefined },
    signal ? { signal } : undefined,
  );
  for await (const event of stream) {
    out.eventCount++;
    const p = event.payload;
    if (!p) continue;
    switch (p.$case) {
      case "task": {
        out.taskId = p.value.id;
        out.finalState = stateName(p.value.status?.state);
        for (const a of p.value.artifacts) keep(a, false);
        const text = textOf(p.value.status?.message?.parts);
        if (text !== undefined) out.lastStatusText = text;
        onProgress({ state: out.finalState, text, data: dataOf(p.value.status?.message?.parts) });
        break;
      }
      case "statusUpdate": {
        out.taskId ??= p.value.taskId;
        out.finalState = stateName(p.value.status?.state);
        const text = textOf(p.value.status?.message?.parts);
        if (text !== undefined) out.lastStatusText = text;
        onProgress({ state: out.finalState, text, data: dataOf(p.value.status?.message?.parts) });
        break;
      }
      case "artifactUpdate":
        if (p.value.artifact) keep(p.value.artifact, p.value.append);
        break;
      case "message": {
        // A direct message reply (no task): treat its text as the final word.
        out.lastStatusText = textOf(p.value.parts);
        onProgress({ state: out.finalState, text: out.lastStatusText });
        break;
      }
    }
  }
  out.artifacts = [...artifacts.values()];
  return out;
}

/** Artifact name under which the green agent returns the bundle (smi_bench). */
export const BUNDLE_ARTIFACT = "evaluation_bundle";

/** JSON values carried by an artifact: DataPart data, and TextParts that parse as JSON (as the AgentBeats client collects them). */
export function jsonValuesOf(artifact: CollectedArtifact): unknown[] {
  const values: unknown[] = [];
  const text = artifact.parts.flatMap((p) => (p.content?.$case === "text" ? [p.content.value] : [])).join("");
  for (const p of artifact.parts) if (p.content?.$case === "data") values.push(p.content.value);
  if (text !== "") {
    try {
      values.push(JSON.parse(text));
    } catch {
      // Prose, not a result.
    }
  }
  return values;
}

function looksLikeBundle(v: unknown): v is Record<string, unknown> {
  return v !== null && typeof v === "object" && "run_id" in v && "spec_url" in v && "metrics" in v;
}

/** The evaluation bundle: from the `evaluation_bundle` artifact, else the first bundle-shaped JSON of any artifact. */
export function findBundle(artifacts: readonly CollectedArtifact[]): Record<string, unknown> | undefined {
  const named = artifacts.filter((a) => a.name === BUNDLE_ARTIFACT);
  for (const a of [...named, ...artifacts.filter((a) => a.name !== BUNDLE_ARTIFACT)]) {
    const hit = jsonValuesOf(a).find(looksLikeBundle);
    if (hit) return hit;
  }
  return undefined;
}
