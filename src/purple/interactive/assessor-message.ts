/**
 * The participant's side of `terminal-bench-shell-v1`: read an assessor's
 * message (`task`, `exec_result`) from the text of an A2A message. The
 * message types are the protocol's own (src/interactive/protocol.ts, schema
 * schemas/interactive_turn.schema.json); this module only decides, for a
 * purple, whether a text is such a message.
 *
 * Tolerant where a green may leave fields out (a missing stdout reads as "",
 * a missing exit code as {@link NOT_RUN_EXIT_CODE}) or add its own (ignored:
 * greens of the field differ), strict where the episode depends on them (a
 * `task` without an instruction is an error). A text that is not a JSON
 * object of an assessor's kind, or names another protocol, is not this
 * protocol at all, and the purple answers it single-shot, as before.
 */
import { BenchError } from "../../util/errors.js";
import {
  NOT_RUN_EXIT_CODE,
  PROTOCOL_NAME,
  type AssessorMessage,
  type ExecRequestMessage,
  type ExecResultMessage,
  type FinalMessage,
  type TaskMessage,
} from "../../interactive/protocol.js";

/** What a participant sends back. */
export type ParticipantAction = ExecRequestMessage | FinalMessage;

/** A message of this protocol that is malformed (a `task` without its instruction), or a turn out of place. */
export class InteractiveTurnError extends BenchError {
  constructor(message: string) {
    super("E_INTERACTIVE_TURN", message);
  }
}

type Json = Record<string, unknown>;
type FieldType = "string" | "integer" | "number" | "boolean";

function parseObject(text: string): Json | undefined {
  const trimmed = text.trim();
  if (!trimmed.startsWith("{")) return undefined;
  try {
    const v: unknown = JSON.parse(trimmed);
    return typeof v === "object" && v !== null && !Array.isArray(v) ? (v as Json) : undefined;
  } catch {
    return undefined;
  }
}

const fits = (v: unknown, type: FieldType): boolean =>
  type === "integer" ? Number.isSafeInteger(v) : type === "number" ? Number.isFinite(v) : typeof v === type;

/** The optional fields of `o` that hold the expected type (others are dropped, not trusted). */
function optionals<T>(o: Json, keys: Record<string, FieldType>): Partial<T> {
  const out: Json = {};
  for (const [k, type] of Object.entries(keys)) if (fits(o[k], type)) out[k] = o[k];
  return out as Partial<T>;
}

const TASK_OPTIONALS: Record<string, FieldType> = {
  benchmark: "string",
  instance_id: "string",
  repo: "string",
  base_commit: "string",
  workdir: "string",
  max_turns: "integer",
  command_timeout_default_s: "integer",
  command_timeout_max_s: "integer",
  episode_time_s: "integer",
  turn_timeout_s: "integer",
};

const RESULT_OPTIONALS: Record<string, FieldType> = {
  timed_out: "boolean",
  stdout_elided_chars: "integer",
  stderr_elided_chars: "integer",
  turn: "integer",
  turns_left: "integer",
  time_left_s: "number",
  error: "string",
};

/**
 * The assessor's message in `text`, or undefined when `text` is not this
 * protocol. Throws InteractiveTurnError for a `task` without an instruction.
 */
export function decodeAssessorMessage(text: string): AssessorMessage | undefined {
  const o = parseObject(text);
  if (!o) return undefined;
  if (o["protocol"] !== undefined && o["protocol"] !== PROTOCOL_NAME) return undefined;
  if (o["kind"] === "task") {
    const instruction = o["instruction"];
    if (typeof instruction !== "string")
      throw new InteractiveTurnError("a `task` message needs a string `instruction`");
    return { kind: "task", protocol: PROTOCOL_NAME, instruction, ...optionals<TaskMessage>(o, TASK_OPTIONALS) };
  }
  if (o["kind"] === "exec_result") {
    const str = (k: string): string => (typeof o[k] === "string" ? o[k] : "");
    return {
      kind: "exec_result",
      exit_code: Number.isSafeInteger(o["exit_code"]) ? (o["exit_code"] as number) : NOT_RUN_EXIT_CODE,
      stdout: str("stdout"),
      stderr: str("stderr"),
      ...optionals<ExecResultMessage>(o, RESULT_OPTIONALS),
    };
  }
  return undefined;
}
