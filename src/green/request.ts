/**
 * Parse the assessment request out of an A2A message. Accepted shapes, in the
 * first TextPart (JSON text) or DataPart of the message:
 * - AgentBeats: `{"participants": {"<role>": "<url>"}, "config": {...}}`
 * - smi_bench:  `{"config": {...}}` (optionally `out_dir`, ignored: results
 *   always go under the results root), or `config` in the message metadata.
 * Never throws: every problem is listed.
 */
import type { Message } from "@a2a-js/sdk";
import { partData, partText } from "../a2a/shared/parts.js";

export interface AssessmentRequest {
  participants: Record<string, string>;
  /** Unvalidated config (validated by config-validation.ts). */
  config: unknown;
}

export type ParsedRequest = { ok: true; request: AssessmentRequest } | { ok: false; problems: string[] };

const TOP_LEVEL_KEYS = new Set(["participants", "config", "out_dir"]);

function isObject(v: unknown): v is Record<string, unknown> {
  return typeof v === "object" && v !== null && !Array.isArray(v);
}

/** The request object of the message: first TextPart parsed as JSON, or first DataPart. */
function requestBody(message: Message): { body?: unknown; problem?: string } {
  for (const part of message.parts) {
    const data = partData(part);
    if (data) return { body: data };
    const text = partText(part);
    if (text !== undefined) {
      try {
        return { body: JSON.parse(text) as unknown };
      } catch (err) {
        const metaConfig = isObject(message.metadata) ? message.metadata["config"] : undefined;
        if (metaConfig !== undefined) return { body: { config: metaConfig } };
        return {
          problem: `message text is not JSON (${(err as Error).message}); send {"participants": {...}, "config": {...}}`,
        };
      }
    }
  }
  const metaConfig = isObject(message.metadata) ? message.metadata["config"] : undefined;
  if (metaConfig !== undefined) return { body: { config: metaConfig } };
  return { problem: "message has no TextPart or DataPart holding the request" };
}

export function parseAssessmentRequest(message: Message): ParsedRequest {
  const { body, problem } = requestBody(message);
  if (problem) return { ok: false, problems: [problem] };
  if (!isObject(body)) return { ok: false, problems: ['request must be a JSON object with a "config" object'] };
  const problems: string[] = [];
  for (const key of Object.keys(body)) {
    if (!TOP_LEVEL_KEYS.has(key)) problems.push(`unknown key "${key}" in the request (allowed: participants, config)`);
  }
  const participants: Record<string, string> = {};
  const rawParticipants = body["participants"];
  if (rawParticipants !== undefined) {
    if (!isObject(rawParticipants)) problems.push(`"participants" must be an object of role → URL`);
    else {
      for (const [role, url] of Object.entries(rawParticipants)) {
        if (typeof url !== "string" || !/^https?:\/\/\S+$/.test(url)) {
          problems.push(`participants.${role} must be an http(s) URL`);
        } else participants[role] = url;
      }
    }
  }
  if (!("config" in body)) problems.push(`missing "config" object`);
  else if (!isObject(body["config"])) problems.push(`"config" must be an object`);
  if (problems.length > 0) return { ok: false, problems };
  return { ok: true, request: { participants, config: body["config"] } };
}
