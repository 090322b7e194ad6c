/**
 * The interactive episode loop: send the task, then per turn read the
 * participant's reply, decode ONE action (decode.ts), run a command in the
 * environment (episode-environment.ts) and send its result back, until the
 * participant is done or a limit ends the episode (episode-record.ts lists
 * the endings). Transport and backend stay behind two interfaces (TurnSender,
 * EpisodeEnvironment), so the loop runs on any of them.
 *
 * Conversation state as RDI's greens keep it (docs/interactive.md): every turn
 * is a NEW task in the SAME contextId (none on the first send; the
 * participant's own afterwards); a taskId is sent only to continue a task the
 * participant left `input-required`. A task that ends failed, rejected or
 * canceled ends the episode as the participant's failure.
 *
 * Time: each send gets the turn's time limit or the time left in the episode,
 * whichever is less (RDI's green passes the time left as the HTTP timeout);
 * the first ends the episode `participant_error`, the second `time_limit`.
 * Each command's timeout is clamped to the time left too. The caller's signal
 * ends the episode at once, `canceled`.
 *
 * Each send is recorded (wire-capture.ts): the reply's body as it came over
 * the wire goes in the turn's trajectory line beside the decoded action,
 * whether the reply could be used or not. A reply whose reading overflows the
 * stack (nested too deep for a sender without the capped reader's depth
 * limit) is the participant's failure, never ours.
 */
import type { Message, Task } from "@a2a-js/sdk";
import { textPart, userMessage } from "../a2a/shared/parts.js";
import { addUsage, type TokenUsage } from "../a2a/shared/usage.js";
import { assertNever, errorMessage } from "../util/errors.js";
import { untilAborted } from "./abortable.js";
import { decodeReply, type Action } from "./decode.js";
import type { CommandOutcome, EpisodeEnvironment } from "./episode-environment.js";
import type { EpisodeExitStatus, EpisodeRecord } from "./episode-record.js";
import { execResultFor, invalidReplyResult, type TurnBudget } from "./exec-result.js";
import { MAX_INVALID_IN_A_ROW, resolveLimits, MAX_COMMAND_TIMEOUT_S, type EpisodeLimits } from "./limits.js";
import { encodeTurnMessage, PROTOCOL_NAME, taskMessage, type AssessorMessage, type InstanceFacts } from "./protocol.js";
import { isMessage, replyContent, type ReplyContent } from "./reply-content.js";
import { submissionFromOutput } from "./sentinel.js";
import { bounded, recordedStream, wireRecord, type TrajectorySink, type TurnLine } from "./trajectory.js";
import { WireRecorder, recordingWire } from "../a2a/client/wire-capture.js";
import type { TurnSender } from "./a2a-sender.js";

/** Told before each command runs (the green streams `$ <command>` as a `working` status). */
export interface CommandEvent {
  turn: number;
  command: string;
  timeoutS: number;
}

export interface EpisodeOptions {
  /** The task text sent in the first message. */
  instruction: string;
  /** Instance facts for the task message (optional fields of the protocol). */
  facts?: InstanceFacts;
  /** Limits; defaults in limits.ts. Out-of-bounds values throw EpisodeLimitsError before anything is sent. */
  limits?: Partial<EpisodeLimits>;
  participant: TurnSender;
  environment: EpisodeEnvironment;
  /** Aborting it ends the episode promptly, `canceled`. */
  signal?: AbortSignal;
  /** Called before each command; what it throws is ignored (an observer never ends an episode). */
  onCommand?: (event: CommandEvent) => void;
  /** Where the trajectory goes; a failed write rejects the episode (no record without its trajectory). */
  trajectory?: TrajectorySink;
}

/** Longest command shown in a status line, characters. */
export const MAX_STATUS_COMMAND_CHARS = 200;

/** The `working` status line of a command: `$ <command>`, on one line, clipped. */
export function commandStatusLine(command: string): string {
  const oneLine = command.replace(/\s*\n\s*/g, " ⏎ ").trim();
  const clipped =
    oneLine.length > MAX_STATUS_COMMAND_CHARS ? `${oneLine.slice(0, MAX_STATUS_COMMAND_CHARS)}…` : oneLine;
  return `$ ${clipped}`;
}

interface Ending {
  status: EpisodeExitStatus;
  error?: { code: string; message: string };
  finalOutput?: string;
  /** The final output is the agent's change as a diff (a `patch` action, mini-swe-agent's submission). */
  finalPatch?: boolean;
}

type Step = { end: Ending } | { next: AssessorMessage };

/** Task states a turn may end in; the rest end the episode. */
const FAILED_STATES = new Set(["failed", "rejected", "canceled"]);
const GOOD_STATES = new Set(["completed", "message", "input-required"]);

const nowIso = (): string => new Date().toISOString();

function participantFailure(code: string, message: string): { end: Ending } {
  return { end: { status: "participant_error", error: { code, message } } };
}

function resourceLimit(message: string): Ending {
  return { status: "resource_limit", error: { code: "E_RESOURCE_LIMIT", message } };
}

/** The message id of a reply (a Message's own, or the final status message's). */
function replyMessageId(result: Message | Task): string {
  return isMessage(result) ? result.messageId : (result.status?.message?.messageId ?? "");
}

class Episode {
  private readonly started = performance.now();
  private readonly deadline: number;
  private readonly signal: AbortSignal;
  private contextId = "";
  private continueTaskId = "";
  private turns = 0;
  private commands = 0;
  private invalidTotal = 0;
  private invalidInARow = 0;
  private commandMs = 0;
  private participantMs = 0;
  private truncations = 0;
  private usage: TokenUsage | undefined;

  constructor(
    private readonly options: EpisodeOptions,
    private readonly limits: EpisodeLimits,
  ) {
    this.deadline = this.started + limits.episodeTimeS * 1000;
    this.signal = options.signal ?? new AbortController().signal;
  }

  private timeLeftMs(): number {
    return this.deadline - performance.now();
  }

  private budget(turn: number): TurnBudget {
    return { turn, maxTurns: this.limits.maxTurns, timeLeftMs: this.timeLeftMs() };
  }

  async run(): Promise<EpisodeRecord> {
    const { limits } = this;
    await this.options.trajectory?.write({
      type: "episode_start",
      at: nowIso(),
      protocol: PROTOCOL_NAME,
      limits,
      facts: this.options.facts ?? {},
    });
    let outbound: AssessorMessage = taskMessage(this.options.instruction, this.options.facts, {
      max_turns: limits.maxTurns,
      command_timeout_default_s: limits.commandTimeoutS,
      command_timeout_max_s: MAX_COMMAND_TIMEOUT_S,
      episode_time_s: limits.episodeTimeS,
      turn_timeout_s: limits.turnTimeoutS,
    });
    for (let turn = 1; ; turn++) {
      const step = await this.turn(turn, outbound);
      if ("end" in step) return this.finish(step.end);
      outbound = step.next;
    }
  }

  private async turn(turn: number, outbound: AssessorMessage): Promise<Step> {
    if (this.signal.aborted) return { end: { status: "canceled" } };
    if (this.timeLeftMs() <= 0) return { end: { status: "time_limit" } };
    const message = userMessage([textPart(encodeTurnMessage(outbound))], {
      contextId: this.contextId,
      taskId: this.continueTaskId,
    });
    const line: TurnLine = {
      type: "turn",
      turn,
      sent_at: nowIso(),
      replied_at: null,
      sent: {
        message_id: message.messageId,
        context_id: message.contextId,
        task_id: message.taskId,
        text: bounded(encodeTurnMessage(outbound)),
      },
    };
    const wire = new WireRecorder();
    const asked = await this.ask(message, wire);
    const body = wire.last();
    if (body) line.wire = wireRecord(body);
    if ("end" in asked) {
      await this.options.trajectory?.write(line);
      return asked;
    }
    const step = await this.handleReply(turn, asked.result, line);
    await this.options.trajectory?.write(line);
    return step;
  }

  /** One send within the turn's time; a failure or timeout becomes the episode's ending. */
  private async ask(message: Message, wire: WireRecorder): Promise<{ result: Message | Task } | { end: Ending }> {
    const turnMs = this.limits.turnTimeoutS * 1000;
    const budgetMs = Math.min(turnMs, this.timeLeftMs());
    const timer = AbortSignal.timeout(Math.max(1, Math.ceil(budgetMs)));
    const signal = AbortSignal.any([this.signal, timer]);
    const t0 = performance.now();
    try {
      const sent = recordingWire(wire, () => this.options.participant.send(message, signal));
      return { result: await untilAborted(sent, signal) };
    } catch (err) {
      if (this.signal.aborted) return { end: { status: "canceled" } };
      if (timer.aborted) {
        if (budgetMs < turnMs) return { end: { status: "time_limit" } };
        return participantFailure("E_PARTICIPANT_TIMEOUT", `no answer within ${this.limits.turnTimeoutS} s`);
      }
      const code = (err as { code?: unknown }).code;
      return participantFailure(typeof code === "string" ? code : "E_PARTICIPANT_TRANSPORT", errorMessage(err));
    } finally {
      this.participantMs += performance.now() - t0;
    }
  }

  private async handleReply(turn: number, result: Message | Task, line: TurnLine): Promise<Step> {
    this.turns++;
    line.replied_at = nowIso();
    let read: { content: ReplyContent; action: Action | null };
    try {
      read = this.read(result);
    } catch (err) {
      // Reading the participant's reply overflowed the stack: its nesting, its failure.
      if (!(err instanceof RangeError)) throw err;
      return participantFailure("E_PARTICIPANT_REPLY_TOO_DEEP", `the reply could not be read: ${errorMessage(err)}`);
    }
    const { content, action } = read;
    line.reply = {
      state: content.state,
      context_id: content.contextId,
      task_id: content.taskId,
      message_id: replyMessageId(result),
    };
    this.usage = addUsage(this.usage, content.usage);
    if (this.contextId === "") this.contextId = content.contextId;
    if (FAILED_STATES.has(content.state)) {
      const said = bounded(content.texts.join("\n"), 500);
      return participantFailure(
        `E_PARTICIPANT_TASK_${content.state.toUpperCase()}`,
        `the participant's task ended ${content.state}${said ? `: ${said}` : ""}`,
      );
    }
    if (action === null) {
      return participantFailure(
        "E_PARTICIPANT_TASK_STATE",
        `the participant's task came back ${content.state}; a turn must end completed or input-required`,
      );
    }
    this.continueTaskId = content.state === "input-required" ? content.taskId : "";
    line.action = action;
    return this.act(turn, action, line);
  }

  /** The reply's content, and its action when it is in a state that carries one (null otherwise). */
  private read(result: Message | Task): { content: ReplyContent; action: Action | null } {
    const content = replyContent(result);
    return { content, action: GOOD_STATES.has(content.state) ? this.decode(content) : null };
  }

  private decode(content: ReplyContent): Action {
    const action = decodeReply(content, this.limits.commandTimeoutS);
    // A task paused for input is not done: plain text there is a question, not a final answer.
    if (content.state === "input-required" && action.type === "final" && action.dialect === "text") {
      return { type: "invalid", reason: "input-required reply without an action: send exec_request or final" };
    }
    return action;
  }

  private act(turn: number, action: Action, line: TurnLine): Promise<Step> | Step {
    switch (action.type) {
      case "final":
        return { end: { status: "final", finalOutput: action.output, ...(action.patch ? { finalPatch: true } : {}) } };
      case "invalid":
        return this.invalid(turn, action.reason, line);
      case "exec":
        return this.exec(turn, action, line);
      default:
        return assertNever(action, "action");
    }
  }

  private invalid(turn: number, reason: string, line: TurnLine): Step {
    this.invalidTotal++;
    this.invalidInARow++;
    if (this.invalidInARow >= MAX_INVALID_IN_A_ROW) {
      return {
        end: {
          status: "format_errors",
          error: {
            code: "E_FORMAT_ERRORS",
            message: `${this.invalidInARow} invalid replies in a row; last: ${reason}`,
          },
        },
      };
    }
    if (turn >= this.limits.maxTurns) return { end: { status: "turn_limit" } };
    const next = invalidReplyResult(reason, this.budget(turn + 1), this.invalidInARow);
    line.result_sent = next;
    return { next };
  }

  private async exec(turn: number, action: Extract<Action, { type: "exec" }>, line: TurnLine): Promise<Step> {
    this.invalidInARow = 0;
    const timeoutS = Math.max(1, Math.min(action.timeoutS, Math.floor(this.timeLeftMs() / 1000)));
    try {
      this.options.onCommand?.({ turn, command: action.command, timeoutS });
    } catch {
      // an observer's failure is its own (see EpisodeOptions.onCommand)
    }
    const outcome = await this.runCommand(action.command, timeoutS);
    if (this.signal.aborted) return { end: { status: "canceled" } };
    this.commands++;
    this.commandMs += outcome.durationMs;
    line.command = {
      exit_code: outcome.exitCode,
      timed_out: outcome.timedOut,
      duration_ms: Math.round(outcome.durationMs),
      stdout: recordedStream(outcome.stdout),
      stderr: recordedStream(outcome.stderr),
      ...(outcome.infraError !== undefined ? { infra_error: outcome.infraError } : {}),
      ...(outcome.limitExceeded !== undefined ? { limit_exceeded: outcome.limitExceeded } : {}),
    };
    if (outcome.infraError !== undefined) {
      return { end: { status: "environment_error", error: { code: "E_ENVIRONMENT", message: outcome.infraError } } };
    }
    if (outcome.limitExceeded !== undefined) return { end: resourceLimit(outcome.limitExceeded) };
    if (action.submitOnSentinel) {
      const submission = submissionFromOutput(outcome.stdout, outcome.exitCode);
      if (submission !== undefined) return { end: { status: "final", finalOutput: submission, finalPatch: true } };
    }
    if (turn >= this.limits.maxTurns) return { end: { status: "turn_limit" } };
    const { message, truncations } = execResultFor(outcome, this.budget(turn + 1));
    this.truncations += truncations;
    line.result_sent = message;
    return { next: message };
  }

  /**
   * An ending the participant's doing may hide a limit it broke with its last command (the backend
   * checks after each command, off the command's latency): asked once here, it takes precedence.
   */
  private async limitChecked(ending: Ending): Promise<Ending> {
    const keep = ["resource_limit", "environment_error", "canceled"];
    if (keep.includes(ending.status) || this.options.environment.limitProblem === undefined) return ending;
    let problem: string | null = null;
    try {
      problem = await this.options.environment.limitProblem();
    } catch {
      // the interface forbids a rejection: no verdict
    }
    return problem === null ? ending : resourceLimit(problem);
  }

  /** The environment's outcome; a rejection (the interface forbids it) counts as the backend's failure. */
  private async runCommand(command: string, timeoutS: number): Promise<CommandOutcome> {
    const t0 = performance.now();
    try {
      return await untilAborted(this.options.environment.run(command, timeoutS, this.signal), this.signal);
    } catch (err) {
      const durationMs = performance.now() - t0;
      return { exitCode: null, stdout: "", stderr: "", timedOut: false, durationMs, infraError: errorMessage(err) };
    }
  }

  private async finish(end: Ending): Promise<EpisodeRecord> {
    const ending = await this.limitChecked(end);
    const seconds = (ms: number): number => Math.round(ms) / 1000;
    const record: EpisodeRecord = {
      exit_status: ending.status,
      turns: this.turns,
      commands: this.commands,
      invalid_replies: this.invalidTotal,
      command_seconds: seconds(this.commandMs),
      participant_seconds: seconds(this.participantMs),
      wall_seconds: seconds(performance.now() - this.started),
      truncations: this.truncations,
      context_id: this.contextId,
      ...(ending.finalOutput !== undefined ? { final_output: ending.finalOutput } : {}),
      ...(ending.finalPatch ? { final_patch: true as const } : {}),
      ...(ending.error ? { error: ending.error } : {}),
      ...(this.usage ? { usage: { ...this.usage, self_reported: true as const } } : {}),
    };
    await this.options.trajectory?.write({ type: "episode_end", at: nowIso(), record });
    return record;
  }
}

/** Run one episode to its end (see the module note); rejects only on bad limits or a failed trajectory write. */
export async function runEpisode(options: EpisodeOptions): Promise<EpisodeRecord> {
  const limits = resolveLimits(options.limits);
  return new Episode(options, limits).run();
}
