/**
 * One episode's trajectory (trajectory.jsonl) as an ATIF v1.7 document: the task message as the user step, each
 * participant turn as an agent step (a command as a tool call, the `exec_result` it was answered with as that
 * call's observation, a final answer as the message), a turn without a reply as a system step. What ATIF has no
 * field for (the wire body's size and hash, exit codes, the episode's ending) goes in `extra`; the JSONL stays
 * the authoritative record, and the document says so in `notes`.
 */
import type { TrajectoryLine, TurnLine } from "../interactive/trajectory.js";

export const ATIF_SCHEMA_VERSION = "ATIF-v1.7";

type Obj = Record<string, unknown>;

export interface AtifToolCall {
  tool_call_id: string;
  function_name: string;
  arguments: Obj;
}

export interface AtifStep {
  step_id: number;
  timestamp?: string;
  source: "system" | "user" | "agent";
  message: string;
  tool_calls?: AtifToolCall[];
  observation?: { results: Array<{ source_call_id?: string | null; content?: string }> };
  extra?: Obj;
}

export interface AtifTrajectory {
  schema_version: typeof ATIF_SCHEMA_VERSION;
  session_id?: string;
  agent: { name: string; version: string; model_name?: string; extra?: Obj };
  steps: AtifStep[];
  notes?: string;
  final_metrics?: {
    total_prompt_tokens?: number;
    total_completion_tokens?: number;
    total_steps?: number;
    extra?: Obj;
  };
  extra?: Obj;
}

export interface AtifOptions {
  /** The participant as named in the document (ATIF requires a name and a version). */
  agentName: string;
  agentVersion: string;
  /** Where the trajectory came from (a path relative to the run), kept in `extra`. */
  source?: string;
}

/** The text the participant was sent in reply to `turn`: the `exec_result` (or error) message as JSON. */
function observed(turn: TurnLine): string | undefined {
  return turn.result_sent === undefined ? undefined : JSON.stringify(turn.result_sent);
}

function agentStep(turn: TurnLine, stepId: number): AtifStep {
  const callId = `turn-${turn.turn}`;
  const extra: Obj = { turn: turn.turn };
  if (turn.wire !== undefined)
    extra["wire"] = { bytes: turn.wire.bytes, sha256: turn.wire.sha256, complete: turn.wire.complete };
  if (turn.reply !== undefined)
    extra["a2a"] = { context_id: turn.reply.context_id, task_id: turn.reply.task_id, state: turn.reply.state };
  const step: AtifStep = {
    step_id: stepId,
    source: "agent",
    message: "",
    ...(turn.replied_at ? { timestamp: turn.replied_at } : {}),
  };
  const action = turn.action;
  if (action?.type === "exec") {
    extra["dialect"] = action.dialect;
    step.tool_calls = [
      {
        tool_call_id: callId,
        function_name: "bash",
        arguments: { command: action.command, timeout_s: action.timeoutS },
      },
    ];
    if (turn.command !== undefined) {
      extra["command"] = {
        exit_code: turn.command.exit_code,
        timed_out: turn.command.timed_out,
        duration_ms: turn.command.duration_ms,
        stdout: { bytes: turn.command.stdout.bytes, sha256: turn.command.stdout.sha256 },
        stderr: { bytes: turn.command.stderr.bytes, sha256: turn.command.stderr.sha256 },
      };
    }
    const content = observed(turn);
    if (content !== undefined) step.observation = { results: [{ source_call_id: callId, content }] };
  } else if (action?.type === "final") {
    extra["dialect"] = action.dialect;
    if (action.patch) extra["patch"] = true;
    step.message = action.output;
  } else if (action?.type === "invalid") {
    extra["invalid"] = action.reason;
    const content = observed(turn);
    if (content !== undefined) step.observation = { results: [{ source_call_id: null, content }] };
  }
  step.extra = extra;
  return step;
}

/** `lines` (one episode's trajectory, as readTrajectory gives them) as an ATIF document. */
export function trajectoryToAtif(lines: readonly TrajectoryLine[], options: AtifOptions): AtifTrajectory {
  const start = lines.find((l) => l.type === "episode_start");
  const end = lines.find((l) => l.type === "episode_end");
  const turns = lines.filter((l): l is TurnLine => l.type === "turn");
  const steps: AtifStep[] = [];
  const first = turns[0];
  if (first !== undefined)
    steps.push({ step_id: 1, timestamp: first.sent_at, source: "user", message: first.sent.text });
  for (const turn of turns) {
    if (turn.replied_at === null && turn.action === undefined) {
      steps.push({
        step_id: steps.length + 1,
        timestamp: turn.sent_at,
        source: "system",
        message: `no reply to turn ${turn.turn}`,
        extra: { turn: turn.turn },
      });
      continue;
    }
    steps.push(agentStep(turn, steps.length + 1));
  }
  if (steps.length === 0) {
    // An episode that ended before its first message (its environment failed): one system step says so.
    steps.push({
      step_id: 1,
      ...(end ? { timestamp: end.at } : {}),
      source: "system",
      message: "the episode ended before the task was sent",
    });
  }
  const record = end?.record;
  const usage = record?.usage;
  const contextId = record?.context_id || first?.reply?.context_id || "";
  return {
    schema_version: ATIF_SCHEMA_VERSION,
    ...(contextId !== "" ? { session_id: contextId } : {}),
    agent: { name: options.agentName, version: options.agentVersion },
    steps,
    notes:
      "Exported by a2a-bench from an episode trajectory (JSON Lines). That file is the authoritative record: each reply's wire body with its size and sha256, each command's streams as the participant was sent them. Token counts, when present, are what the participant reported.",
    final_metrics: {
      total_steps: steps.length,
      ...(usage !== undefined
        ? {
            total_prompt_tokens: usage.prompt_tokens,
            total_completion_tokens: usage.completion_tokens,
            extra: { usage_source: "self_reported" },
          }
        : {}),
    },
    extra: {
      exporter: "a2a-bench",
      ...(options.source !== undefined ? { source: options.source } : {}),
      ...(start !== undefined ? { protocol: start.protocol, facts: start.facts } : {}),
      ...(record !== undefined
        ? {
            exit_status: record.exit_status,
            turns: record.turns,
            commands: record.commands,
            wall_seconds: record.wall_seconds,
            ...(record.error !== undefined ? { error: record.error } : {}),
          }
        : { complete: false }),
    },
  };
}
