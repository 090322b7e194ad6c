/**
 * `terminal-bench-shell-v1`, the turn protocol of interactive episodes, as
 * RDI's Terminal-Bench green speaks it: every message is ONE A2A TextPart
 * holding ONE JSON object with a `kind`. The assessor opens with `task`,
 * the participant answers `exec_request` or `final`, the assessor answers
 * each request with `exec_result`. Our extra fields (instance facts, limits,
 * truncation counts, the turn budget) are optional, so participants written
 * for RDI's green, which ignore unknown keys, work unchanged.
 *
 * The wire shape is schemas/interactive_turn.schema.json (the single source of
 * truth; these types are checked against it in tests/interactive/protocol.test.ts).
 * Reading a participant's reply tolerantly is decode.ts's business, not this module's.
 */
import { checkAgainst } from "../util/schema.js";

/** The protocol's name, sent in the `task` message. */
export const PROTOCOL_NAME = "terminal-bench-shell-v1";
export const INTERACTIVE_TURN_SCHEMA_FILE = "interactive_turn.schema.json";

/** exit_code sent for a command stopped at its timeout (coreutils `timeout` exits 124). */
export const TIMED_OUT_EXIT_CODE = 124;
/** exit_code sent when nothing ran (the reply was not a valid action). */
export const NOT_RUN_EXIT_CODE = -1;

/** What the task says about the instance (all optional: participants may ignore them). */
export interface InstanceFacts {
  benchmark?: string;
  instance_id?: string;
  repo?: string;
  base_commit?: string;
  workdir?: string;
}

/** The episode's limits as the task message announces them. */
export interface AnnouncedLimits {
  max_turns?: number;
  command_timeout_default_s?: number;
  command_timeout_max_s?: number;
  episode_time_s?: number;
  turn_timeout_s?: number;
}

/** Assessor → participant, first. */
export interface TaskMessage extends InstanceFacts, AnnouncedLimits {
  kind: "task";
  protocol: typeof PROTOCOL_NAME;
  instruction: string;
}

/** Participant → assessor: run a command. `timeout` in seconds. */
export interface ExecRequestMessage {
  kind: "exec_request";
  command: string;
  timeout?: number;
}

/** Participant → assessor: done. */
export interface FinalMessage {
  kind: "final";
  output?: string;
}

/** Assessor → participant: what the last request did. */
export interface ExecResultMessage {
  kind: "exec_result";
  exit_code: number;
  stdout: string;
  stderr: string;
  timed_out?: boolean;
  stdout_elided_chars?: number;
  stderr_elided_chars?: number;
  turn?: number;
  turns_left?: number;
  time_left_s?: number;
  error?: string;
}

/** Any message of the protocol. */
export type TurnMessage = TaskMessage | ExecRequestMessage | FinalMessage | ExecResultMessage;

/** Messages the assessor sends. */
export type AssessorMessage = TaskMessage | ExecResultMessage;

/** The `task` message: the instruction, then the instance's facts and the limits that are given. */
export function taskMessage(instruction: string, facts: InstanceFacts = {}, limits: AnnouncedLimits = {}): TaskMessage {
  return { kind: "task", protocol: PROTOCOL_NAME, instruction, ...facts, ...limits };
}

/** The text of a TextPart carrying `message`: one JSON object, nothing else. */
export function encodeTurnMessage(message: TurnMessage): string {
  return JSON.stringify(message);
}

/** Problems of `value` as a protocol message (schemas/interactive_turn.schema.json); empty when valid. */
export function turnMessageProblems(value: unknown): string[] {
  return checkAgainst(INTERACTIVE_TURN_SCHEMA_FILE, value);
}
