/**
 * `openai` mode: answer with an OpenAI-compatible chat-completions endpoint
 * (api.openai.com, or a local llama.cpp / vLLM / Ollama server through
 * `--base-url`), on the official `openai` client.
 *
 * - One A2A request → one chat completion (no `n` sent). The runner asks the
 *   participant once per sample (HumanEval's `n`), so pass@k samples are
 *   independent requests; with `--seed S`, sample i (the request's
 *   `sample_index`) is sent seed S + i, so the samples differ yet replay.
 * - Transient HTTP failures (429, 408, 409, 5xx), connection errors and
 *   request timeouts are retried by the client itself (`--max-retries`,
 *   exponential backoff honouring `Retry-After`); `--timeout-seconds` bounds
 *   each request.
 * - A reply without content is the model's failure, reported as a typed
 *   error (the task ends `failed`, the runner scores it "no code"): a refusal
 *   and a reply cut by the token limit (reasoning models spend it thinking)
 *   fail at once; any other content-less reply is asked again
 *   `--empty-reply-retries` times first.
 * - Token usage (summed over the requests an answer took) goes back with the
 *   answer (src/a2a/shared/usage.ts), and with a content-less failure too (what the
 *   reasoning cost); the runner records it per completion.
 */
import OpenAI, { APIConnectionTimeoutError, APIConnectionError, APIError, APIUserAbortError } from "openai";
import type {
  ChatCompletion,
  ChatCompletionCreateParamsNonStreaming,
  ChatCompletionMessageParam,
} from "openai/resources/chat/completions";
import type { Solver, SolverInput, SolverReply } from "../solver.js";
import type { SolverOptions } from "./options.js";
import { BenchError, errorMessage } from "../../util/errors.js";
import { silentLogger, type Logger } from "../../util/logger.js";
import { addUsage, type TokenUsage } from "../../a2a/shared/usage.js";
import { resolveOpenAISettings, type OpenAIFlagValues, type OpenAISettings } from "./openai-settings.js";

export type OpenAIErrorCode =
  | "E_OPENAI_HTTP"
  | "E_OPENAI_TIMEOUT"
  | "E_OPENAI_CONNECTION"
  | "E_OPENAI_NO_CONTENT"
  | "E_OPENAI_TRUNCATED"
  | "E_OPENAI_REFUSAL";

/** Failure of the chat endpoint or of the model's reply (after the client's retries). */
export class OpenAIError extends BenchError {
  declare readonly code: OpenAIErrorCode;
  /** HTTP status, when the server answered with an error. */
  readonly status: number | null;
  /** Tokens the failed answer still cost (content-less replies), summed over its requests. */
  usage: TokenUsage | undefined;
  constructor(code: OpenAIErrorCode, message: string, status: number | null = null, options?: { cause?: unknown }) {
    super(code, message, options);
    this.status = status;
  }
}

export interface OpenAISolverOptions extends SolverOptions {
  /** Checked flag values (src/cli/purple.ts); env and defaults fill the rest. */
  openai?: OpenAIFlagValues;
}

/** The sample index the runner put in the request (`sample_index` in its data or metadata), else 0. */
export function sampleIndex(input: SolverInput): number {
  for (const source of [input.data, input.metadata]) {
    const v = source?.["sample_index"];
    if (typeof v === "number" && Number.isSafeInteger(v) && v >= 0) return v;
  }
  return 0;
}

/** The chat-completions request body for one answer. */
export function chatRequest(settings: OpenAISettings, input: SolverInput): ChatCompletionCreateParamsNonStreaming {
  const messages: ChatCompletionMessageParam[] = [];
  if (settings.systemPrompt !== "") messages.push({ role: "system", content: settings.systemPrompt });
  messages.push({ role: "user", content: input.text });
  const body: ChatCompletionCreateParamsNonStreaming = { model: settings.model, messages, ...samplingParams(settings) };
  if (settings.seed !== undefined) body.seed = settings.seed + sampleIndex(input);
  return body;
}

/** The sampling fields of a request body, as set (the server's defaults otherwise). */
export function samplingParams(settings: OpenAISettings): Partial<ChatCompletionCreateParamsNonStreaming> {
  const body: Partial<ChatCompletionCreateParamsNonStreaming> = {};
  if (settings.temperature !== undefined) body.temperature = settings.temperature;
  if (settings.topP !== undefined) body.top_p = settings.topP;
  if (settings.maxTokens !== undefined) body.max_tokens = settings.maxTokens;
  if (settings.maxCompletionTokens !== undefined) body.max_completion_tokens = settings.maxCompletionTokens;
  if (settings.seed !== undefined) body.seed = settings.seed;
  return body;
}

/** The usage a completion reports (one request), or undefined when it reports none or malformed. */
export function completionUsage(completion: ChatCompletion): TokenUsage | undefined {
  // A server may answer 200 with anything (even `null`): every read is guarded.
  const u = completion?.usage;
  if (
    !u ||
    typeof u.prompt_tokens !== "number" ||
    typeof u.completion_tokens !== "number" ||
    typeof u.total_tokens !== "number"
  )
    return undefined;
  const usage: TokenUsage = {
    prompt_tokens: u.prompt_tokens,
    completion_tokens: u.completion_tokens,
    total_tokens: u.total_tokens,
    requests: 1,
  };
  const reasoning = u.completion_tokens_details?.reasoning_tokens;
  if (typeof reasoning === "number") usage.reasoning_tokens = reasoning;
  return usage;
}

/** The answer text of a completion, or the typed reason there is none (`retry`: worth asking again). */
function contentOf(completion: ChatCompletion): { text: string } | { error: OpenAIError; retry: boolean } {
  const choice = Array.isArray(completion?.choices) ? completion.choices[0] : undefined;
  if (!choice) return { error: new OpenAIError("E_OPENAI_NO_CONTENT", "chat completion without choices"), retry: true };
  const message = choice.message as ChatCompletion.Choice["message"] & {
    reasoning_content?: unknown;
    reasoning?: unknown;
  };
  if (typeof message?.content === "string" && message.content !== "") return { text: message.content };
  if (typeof message?.refusal === "string" && message.refusal !== "") {
    return {
      error: new OpenAIError("E_OPENAI_REFUSAL", `the model refused: ${message.refusal.slice(0, 300)}`),
      retry: false,
    };
  }
  const reasoning = message?.reasoning_content ?? message?.reasoning;
  const thought =
    typeof reasoning === "string" && reasoning !== "" ? ` after ${reasoning.length} characters of reasoning` : "";
  if (choice.finish_reason === "length") {
    return {
      error: new OpenAIError(
        "E_OPENAI_TRUNCATED",
        `the reply hit the token limit with no content${thought} (raise --max-completion-tokens / --max-tokens)`,
      ),
      retry: false,
    };
  }
  const calls = message?.tool_calls?.length
    ? `, ${message.tool_calls.length} tool call(s) though no tools were offered`
    : "";
  return {
    error: new OpenAIError(
      "E_OPENAI_NO_CONTENT",
      `the reply had no content (finish_reason ${choice.finish_reason ?? "none"}${thought}${calls})`,
    ),
    retry: true,
  };
}

/** The client's error as ours; an abort passes through untouched. */
export function typedOpenAIError(err: unknown, settings: OpenAISettings): unknown {
  if (err instanceof APIUserAbortError) return err;
  if (err instanceof APIConnectionTimeoutError) {
    return new OpenAIError(
      "E_OPENAI_TIMEOUT",
      `no reply from ${settings.baseUrl} within ${settings.timeoutMs / 1000} s (after ${settings.maxRetries} retries)`,
      null,
      { cause: err },
    );
  }
  if (err instanceof APIConnectionError) {
    return new OpenAIError(
      "E_OPENAI_CONNECTION",
      `cannot reach ${settings.baseUrl} (after ${settings.maxRetries} retries): ${errorMessage(err.cause ?? err)}`,
      null,
      { cause: err },
    );
  }
  if (err instanceof APIError) {
    const status = typeof err.status === "number" ? err.status : null;
    return new OpenAIError("E_OPENAI_HTTP", `chat completion failed: ${errorMessage(err).slice(0, 500)}`, status, {
      cause: err,
    });
  }
  return err;
}

/** The client's log lines into our logger (the client would write to the console). */
function clientLogger(logger: Logger) {
  const at =
    (level: "error" | "warn" | "info" | "debug") =>
    (message: string, ...rest: unknown[]) =>
      logger[level](
        rest.length > 0 ? { detail: rest.map((r) => (r instanceof Error ? r.message : r)) } : {},
        `openai client: ${message}`,
      );
  return { error: at("error"), warn: at("warn"), info: at("info"), debug: at("debug") };
}

/** The chat client of resolved settings (base URL, key, per-request timeout, retries; logs into `logger`). */
export function createOpenAIClient(settings: OpenAISettings, logger: Logger): OpenAI {
  return new OpenAI({
    // Local servers take any key; the client insists on one.
    apiKey: settings.apiKey ?? "no-key",
    baseURL: settings.baseUrl,
    timeout: settings.timeoutMs,
    maxRetries: settings.maxRetries,
    logger: clientLogger(logger),
    logLevel: "warn",
  });
}

/**
 * The model gateway an assessment offers with a question (`model_gateway` in its metadata or DataPart:
 * `base_url` and `api_key`, docs/model-gateway.md), or undefined. When offered, the question is answered
 * through it: the assessment then measures what the answer cost.
 */
export function gatewayGrantOf(input: SolverInput): { base_url: string; api_key: string } | undefined {
  for (const source of [input.metadata, input.data]) {
    const g = source?.["model_gateway"];
    if (typeof g !== "object" || g === null) continue;
    const { base_url, api_key } = g as Record<string, unknown>;
    if (typeof base_url === "string" && /^https?:\/\//.test(base_url) && typeof api_key === "string")
      return { base_url, api_key };
  }
  return undefined;
}

/** Create the solver from resolved settings (tests) or options (the mode table). */
export function createOpenAISolverFromSettings(settings: OpenAISettings, logger: Logger = silentLogger()): Solver {
  const ownClient = createOpenAIClient(settings, logger);
  let warnedGreedy = false;

  return {
    mode: "openai",
    async solve(input, signal): Promise<SolverReply> {
      const body = chatRequest(settings, input);
      const grant = gatewayGrantOf(input);
      const client = grant
        ? createOpenAIClient({ ...settings, baseUrl: grant.base_url, apiKey: grant.api_key }, logger)
        : ownClient;
      if (!warnedGreedy && settings.temperature === 0 && sampleIndex(input) > 0) {
        warnedGreedy = true;
        logger.warn(
          { temperature: 0 },
          "several samples per task at temperature 0 are near-identical: pass@k over them means little (set --temperature)",
        );
      }
      let usage: TokenUsage | undefined;
      for (let ask = 0; ; ask++) {
        let completion: ChatCompletion;
        try {
          completion = await client.chat.completions.create(body, { signal });
        } catch (err) {
          const e = typedOpenAIError(err, settings);
          if (e instanceof OpenAIError) e.usage = usage; // what earlier content-less asks cost
          throw e;
        }
        usage = addUsage(usage, completionUsage(completion));
        const got = contentOf(completion);
        if ("text" in got) {
          return {
            text: got.text,
            ...(usage ? { usage } : {}),
            metadata: {
              model: completion.model ?? settings.model,
              finish_reason: completion.choices[0]?.finish_reason ?? null,
            },
          };
        }
        if (!got.retry || ask >= settings.emptyReplyRetries) {
          got.error.usage = usage;
          throw got.error;
        }
        logger.warn({ ask: ask + 1, error: got.error.message }, "content-less chat completion; asking again");
      }
    },
  };
}

/** Create the openai solver; throws UsageError when settings are missing or malformed. */
export function createOpenAISolver(options: OpenAISolverOptions = {}): Solver {
  const settings = resolveOpenAISettings(options.model, options.openai ?? {}, options.env ?? process.env);
  return createOpenAISolverFromSettings(settings, options.logger ?? silentLogger());
}
