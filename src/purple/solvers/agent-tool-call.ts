/**
 * One tool call of the `agent` mode's model, read: a command to run, the
 * submission, or the reason it cannot be run (told back to the model as the
 * tool's answer; a model's malformed call never ends the episode by itself).
 */
import type { ChatCompletionMessageToolCall } from "openai/resources/chat/completions";
import { BASH_TOOL, SUBMIT_TOOL } from "./agent-prompts.js";

export type ReadToolCall =
  | { kind: "bash"; command: string; timeout?: number }
  | { kind: "submit"; output?: string }
  | { kind: "invalid"; reason: string };

function argumentsOf(raw: unknown): Record<string, unknown> | string {
  if (raw === undefined || raw === null || raw === "") return {};
  if (typeof raw !== "string") return "the arguments are not a JSON string";
  try {
    const v: unknown = JSON.parse(raw);
    return typeof v === "object" && v !== null && !Array.isArray(v)
      ? (v as Record<string, unknown>)
      : "the arguments are not a JSON object";
  } catch {
    return `the arguments are not valid JSON: ${raw.slice(0, 200)}`;
  }
}

function bash(args: Record<string, unknown>): ReadToolCall {
  const command = args["command"];
  if (typeof command !== "string" || command.trim() === "")
    return { kind: "invalid", reason: `the ${BASH_TOOL} tool needs a non-empty string "command"` };
  const t = args["timeout"];
  if (t === undefined || t === null) return { kind: "bash", command };
  const seconds = typeof t === "string" ? Number(t) : t;
  if (typeof seconds !== "number" || !Number.isFinite(seconds) || seconds <= 0)
    return { kind: "invalid", reason: `"timeout" must be a positive number of seconds` };
  return { kind: "bash", command, timeout: Math.ceil(seconds) };
}

/** Read one tool call of the model. */
export function readToolCall(call: ChatCompletionMessageToolCall): ReadToolCall {
  if (call.type !== "function" || typeof call.function?.name !== "string")
    return { kind: "invalid", reason: "only function tool calls are supported" };
  const args = argumentsOf(call.function.arguments);
  if (typeof args === "string") return { kind: "invalid", reason: args };
  switch (call.function.name) {
    case BASH_TOOL:
      return bash(args);
    case SUBMIT_TOOL: {
      const output = args["output"];
      if (output === undefined || output === null) return { kind: "submit" };
      return typeof output === "string"
        ? { kind: "submit", output }
        : { kind: "invalid", reason: `"output" must be a string` };
    }
    default:
      return {
        kind: "invalid",
        reason: `there is no tool "${call.function.name}" (the tools are ${BASH_TOOL} and ${SUBMIT_TOOL})`,
      };
  }
}
