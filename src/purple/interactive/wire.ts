/**
 * The participant's view of `terminal-bench-shell-v1` (the protocol RDI's
 * Terminal-Bench green speaks): every message is ONE TextPart holding ONE
 * JSON object with a `kind`. The green sends `task`, then one `exec_result`
 * per command; the participant answers `exec_request` or `final`. Each turn is
 * a new A2A task in the same contextId.
 *
 * Decoding is tolerant where the green's fields are optional (a missing
 * stdout reads as ""), strict where the episode depends on them (a `task`
 * without an instruction is not a task). A message that is not a JSON object
 * of one of the green's kinds is not this protocol at all, and the purple
 * answers it single-shot, as before.
 */
import { BenchError } from "../../util/errors.js";

export const PROTOCOL_NAME = "terminal-bench-shell-v1";

/** The green's first message: what to do, and where. */
export interface TaskMessage {
  kind: "task";
  instruction: string;
  protocol?: string;
  benchmark?: string;
  instance_id?: string;
  repo?: string;
  base_commit?: string;
  workdir?: string;
  limits?: Record<string, unknown>;
}

/** The outcome of the participant's last `exec_request`. */
export interface ExecResultMessage {
  kind: "exec_result";
  exit_code: number | null;
  stdout: string;
  stderr: string;
  timed_out?: boolean;
  stdout_elided_chars?: number;
  stderr_elided_chars?: number;
  turn?: number;
  turns_left?: number;
  time_left_s?: number;
}

export type GreenMessage = TaskMessage | ExecResultMessage;

/** Run one shell command in the environment (`timeout` in seconds; the green clamps it). */
export interface ExecRequest {
  kind: "exec_request";
  command: string;
  timeout?: number;
}

/** The episode is over; `output` is the participant's answer text, if any. */
export interface FinalAction {
  kind: "final";
  output?: string;
}

export type ParticipantAction = ExecRequest | FinalAction;

/** A message of this protocol that is malformed (a `task` without its instruction). */
export class WireError extends BenchError {
  constructor(message: string) {
    super("E_INTERACTIVE_WIRE", message);
  }
}

const str = (v: unknown): string | undefined => (typeof v === "string" ? v : undefined);
const num = (v: unknown): number | undefined => (typeof v === "number" && Number.isFinite(v) ? v : undefined);

function parseObject(text: string): Record<string, unknown> | undefined {
  const trimmed = text.trim();
  if (!trimmed.startsWith("{")) return undefined;
  try {
    const v: unknown = JSON.parse(trimmed);
    return typeof v === "object" && v !== null && !Array.isArray(v) ? (v as Record<string, unknown>) : undefined;
  } catch {
    return undefined;
  }
}

/** Copy the optional fields of `kind` that hold the expected type (others are dropped, not trusted). */
function optionals<T extends object>(
  o: Record<string, unknown>,
  keys: Record<string, "string" | "number" | "boolean" | "object">,
): Partial<T> {
  const out: Record<string, unknown> = {};
  for (const [k, type] of Object.entries(keys)) {
    const v = o[k];
    if (type === "object" ? typeof v === "object" && v !== null && !Array.isArray(v) : typeof v === type) out[k] = v;
  }
  return out as Partial<T>;
}

/**
 * The green's message in `text`, or undefined when `text` is not this
 * protocol (not a JSON object, or no green `kind`). Throws WireError for a
 * `task` without an instruction.
 */
export function decodeGreenMessage(text: string): GreenMessage | undefined {
  const o = parseObject(text);
  if (!o) return undefined;
  if (o["kind"] === "task") {
    const instruction = str(o["instruction"]);
    if (instruction === undefined) throw new WireError("a `task` message needs a string `instruction`");
    return {
      kind: "task",
      instruction,
      ...optionals<TaskMessage>(o, {
        protocol: "string",
        benchmark: "string",
        instance_id: "string",
        repo: "string",
        base_commit: "string",
        workdir: "string",
        limits: "object",
      }),
    };
  }
  if (o["kind"] === "exec_result") {
    return {
      kind: "exec_result",
      exit_code: num(o["exit_code"]) ?? null,
      stdout: str(o["stdout"]) ?? "",
      stderr: str(o["stderr"]) ?? "",
      ...optionals<ExecResultMessage>(o, {
        timed_out: "boolean",
        stdout_elided_chars: "number",
        stderr_elided_chars: "number",
        turn: "number",
        turns_left: "number",
        time_left_s: "number",
      }),
    };
  }
  return undefined;
}

/** The reply text of an action: one JSON object. */
export function encodeAction(action: ParticipantAction): string {
  return JSON.stringify(action);
}
