/**
 * `agent` mode: a tool-using loop over an OpenAI-compatible chat-completions
 * server, for interactive assessments. The green's `task` instruction is the
 * first user message; the model gets one `bash` tool (each call becomes an
 * `exec_request`, its `exec_result` the tool's answer) and a `submit` tool
 * (`final`, with its `output`); an answer without a tool call is `final`
 * too, with the answer as output. A malformed tool call is answered with the
 * reason and costs a step, not a turn of the green's.
 *
 * Limits (agent-settings.ts): `--max-steps` model calls per episode, and
 * `--max-cost` USD when prices are given and the server reports usage; at a
 * limit the episode ends with `final` (`stop_reason` in the reply metadata).
 * Each reply carries the tokens of the model calls its turn took (the green
 * records them as self-reported usage) and the episode's running total.
 *
 * A message of no interactive protocol is answered as the `openai` mode
 * answers it (one completion, no tools).
 */
import type OpenAI from "openai";
import type {
  ChatCompletion,
  ChatCompletionMessage,
  ChatCompletionMessageParam,
  ChatCompletionMessageToolCall,
} from "openai/resources/chat/completions";
import type { Episode, EpisodeStep } from "../interactive/episode.js";
import type { ExecResultMessage, TaskMessage } from "../../interactive/protocol.js";
import { createInteractiveSolver, type InteractiveSolver } from "../interactive/interactive-solver.js";
import { addUsage, type TokenUsage } from "../../a2a/shared/usage.js";
import { silentLogger, type Logger } from "../../util/logger.js";
import type { SolverOptions } from "./options.js";
import { resolveOpenAISettings, type OpenAISettings } from "./openai-settings.js";
import {
  OpenAIError,
  completionUsage,
  createOpenAIClient,
  createOpenAISolverFromSettings,
  samplingParams,
  typedOpenAIError,
} from "./openai.js";
import { agentLimits, type AgentLimits } from "./agent-settings.js";
import { AGENT_SYSTEM_PROMPT, AGENT_TOOLS, observation, taskPrompt, toolError } from "./agent-prompts.js";
import { readToolCall } from "./agent-tool-call.js";

/** Why an agent episode ended. */
export type StopReason = "submitted" | "answered" | "step_limit" | "cost_limit";

export interface AgentEpisodeDeps {
  client: OpenAI;
  settings: OpenAISettings;
  limits: AgentLimits;
  /** `""` sends none. */
  systemPrompt: string;
  logger: Logger;
}

class AgentEpisode implements Episode {
  private readonly messages: ChatCompletionMessageParam[] = [];
  /** Tool calls of the last model answer not yet acted on, in order. */
  private pending: ChatCompletionMessageToolCall[] = [];
  /** The `bash` call whose `exec_result` comes next. */
  private awaiting: string | undefined;
  private steps = 0;
  private invalidCalls = 0;
  private total: TokenUsage | undefined;
  private turn: TokenUsage | undefined;
  /** Model calls whose usage the server did not report (their cost is unknown). */
  private unreported = 0;
  private lastContent = "";

  constructor(private readonly deps: AgentEpisodeDeps) {}

  start(task: TaskMessage, signal: AbortSignal): Promise<EpisodeStep> {
    if (this.deps.systemPrompt !== "") this.messages.push({ role: "system", content: this.deps.systemPrompt });
    this.messages.push({ role: "user", content: taskPrompt(task) });
    return this.advance(signal);
  }

  next(result: ExecResultMessage, signal: AbortSignal): Promise<EpisodeStep> {
    if (this.awaiting !== undefined) {
      this.messages.push({ role: "tool", tool_call_id: this.awaiting, content: observation(result) });
      this.awaiting = undefined;
    }
    return this.advance(signal);
  }

  /** Act on pending tool calls, asking the model for more, until there is an action for the green. */
  private async advance(signal: AbortSignal): Promise<EpisodeStep> {
    this.turn = undefined;
    for (;;) {
      const call = this.pending.shift();
      if (call) {
        const step = this.act(call);
        if (step) return step;
        continue;
      }
      const stop = this.limitReached();
      if (stop) return this.finish(this.lastContent === "" ? undefined : this.lastContent, stop);
      const message = await this.complete(signal);
      this.lastContent = typeof message.content === "string" ? message.content : "";
      const calls = (message.tool_calls ?? []).map((c, i) => (c.id ? c : { ...c, id: `call_${this.steps}_${i}` }));
      this.messages.push({
        role: "assistant",
        content: message.content ?? null,
        ...(calls.length > 0 ? { tool_calls: calls } : {}),
      });
      if (calls.length === 0) return this.finish(this.lastContent, "answered");
      this.pending = [...calls]; // a copy: the assistant message keeps every call it made
    }
  }

  /** The action of one tool call, or undefined when it was malformed (answered with the reason). */
  private act(call: ChatCompletionMessageToolCall): EpisodeStep | undefined {
    const read = readToolCall(call);
    switch (read.kind) {
      case "bash":
        this.awaiting = call.id;
        return {
          action: {
            kind: "exec_request",
            command: read.command,
            ...(read.timeout !== undefined ? { timeout: read.timeout } : {}),
          },
          ...this.report(),
        };
      case "submit":
        return this.finish(read.output, "submitted");
      case "invalid":
        this.invalidCalls += 1;
        this.messages.push({ role: "tool", tool_call_id: call.id, content: toolError(read.reason) });
        return undefined;
    }
  }

  private finish(output: string | undefined, stop: StopReason): EpisodeStep {
    const report = this.report();
    return {
      action: output === undefined ? { kind: "final" } : { kind: "final", output },
      ...(report.usage ? { usage: report.usage } : {}),
      metadata: { ...report.metadata, stop_reason: stop },
    };
  }

  /** This turn's usage and the episode's figures so far. */
  private report(): { usage?: TokenUsage; metadata: Record<string, unknown> } {
    const cost = this.costUsd();
    return {
      ...(this.turn ? { usage: this.turn } : {}),
      metadata: {
        model: this.deps.settings.model,
        steps: this.steps,
        max_steps: this.deps.limits.maxSteps,
        invalid_tool_calls: this.invalidCalls,
        ...(this.total ? { episode_usage: this.total } : {}),
        ...(cost !== undefined ? { cost_usd: cost } : {}),
      },
    };
  }

  /** USD so far; undefined without prices or when some call's usage went unreported. */
  private costUsd(): number | undefined {
    const prices = this.deps.limits.prices;
    if (!prices || this.unreported > 0) return undefined;
    const t = this.total;
    if (!t) return 0;
    return (t.prompt_tokens * prices.inputPerMTok + t.completion_tokens * prices.outputPerMTok) / 1e6;
  }

  private limitReached(): StopReason | undefined {
    if (this.steps >= this.deps.limits.maxSteps) return "step_limit";
    const max = this.deps.limits.maxCostUsd;
    const cost = this.costUsd();
    if (max !== undefined && cost !== undefined && cost >= max) return "cost_limit";
    return undefined;
  }

  /** One model call (a step); its usage counted; a failure typed, with what the episode cost so far. */
  private async complete(signal: AbortSignal): Promise<ChatCompletionMessage> {
    const { client, settings, logger } = this.deps;
    this.steps += 1;
    let completion: ChatCompletion;
    try {
      completion = await client.chat.completions.create(
        { model: settings.model, messages: this.messages, tools: AGENT_TOOLS, ...samplingParams(settings) },
        { signal },
      );
    } catch (err) {
      const e = typedOpenAIError(err, settings);
      if (e instanceof OpenAIError) e.usage = this.turn;
      throw e;
    }
    const usage = completionUsage(completion);
    if (!usage) this.unreported += 1;
    this.turn = addUsage(this.turn, usage);
    this.total = addUsage(this.total, usage);
    const message = Array.isArray(completion?.choices) ? completion.choices[0]?.message : undefined;
    logger.debug({ step: this.steps, toolCalls: message?.tool_calls?.length ?? 0 }, "agent step");
    if (!message || typeof message !== "object") {
      const e = new OpenAIError("E_OPENAI_NO_CONTENT", "chat completion without a message");
      e.usage = this.turn;
      throw e;
    }
    return message;
  }
}

/** A fresh agent episode. */
export function agentEpisode(deps: AgentEpisodeDeps): Episode {
  return new AgentEpisode(deps);
}

/** Create the agent solver; throws UsageError when the chat settings are missing or malformed. */
export function createAgentSolver(options: SolverOptions = {}): InteractiveSolver {
  const logger = options.logger ?? silentLogger();
  const settings = resolveOpenAISettings(options.model, options.openai ?? {}, options.env ?? process.env, "agent");
  const deps: AgentEpisodeDeps = {
    client: createOpenAIClient(settings, logger),
    settings,
    limits: agentLimits(options.agent),
    systemPrompt: options.openai?.systemPrompt ?? AGENT_SYSTEM_PROMPT,
    logger,
  };
  return createInteractiveSolver("agent", () => agentEpisode(deps), {
    ...options.episodes,
    singleShot: createOpenAISolverFromSettings(settings, logger),
  });
}
