/**
 * `openai` mode: answer with an OpenAI-compatible chat-completions endpoint
 * (`POST {OPENAI_BASE_URL}/chat/completions`, bearer OPENAI_API_KEY,
 * `--model`). Transient failures (HTTP 429, 5xx, network errors, a request
 * timeout) are retried with exponential backoff, bounded; a `Retry-After`
 * header (seconds) is honoured up to the cap. Other HTTP errors fail at once.
 */
import type { Solver, SolverReply } from "../solver.js";
import type { SolverOptions } from "./index.js";
import { BenchError, UsageError, errorMessage } from "../../util/errors.js";
import { silentLogger } from "../../util/logger.js";

export const DEFAULT_BASE_URL = "https://api.openai.com/v1";
/** Total attempts per answer (1 + retries). */
export const DEFAULT_ATTEMPTS = 5;
/** First backoff delay, ms; doubled each retry, capped at MAX_BACKOFF_MS. */
export const DEFAULT_BACKOFF_MS = 1000;
export const MAX_BACKOFF_MS = 30_000;
/** One HTTP request's time limit, ms (long completions take a while). */
export const DEFAULT_REQUEST_TIMEOUT_MS = 120_000;

export const SYSTEM_PROMPT =
  "You are a careful software engineer. Answer the task exactly as asked; put code in one fenced code block.";

export interface OpenAISolverOptions extends SolverOptions {
  attempts?: number;
  backoffMs?: number;
  requestTimeoutMs?: number;
}

/** Failure of the chat endpoint (after retries, or not retryable). */
export class OpenAIError extends BenchError {
  readonly status: number | null;
  constructor(message: string, status: number | null, options?: { cause?: unknown }) {
    super("E_OPENAI", message, options);
    this.status = status;
  }
}

const isTransient = (status: number): boolean => status === 429 || status >= 500;

function sleep(ms: number, signal: AbortSignal): Promise<void> {
  return new Promise((resolve, reject) => {
    if (signal.aborted) return reject(signal.reason);
    const onAbort = (): void => {
      clearTimeout(timer);
      reject(signal.reason);
    };
    const timer = setTimeout(() => {
      signal.removeEventListener("abort", onAbort);
      resolve();
    }, ms);
    signal.addEventListener("abort", onAbort, { once: true });
  });
}

/** Create the openai solver; throws UsageError when no model is named. */
export function createOpenAISolver(options: OpenAISolverOptions = {}): Solver {
  const env = options.env ?? process.env;
  const logger = options.logger ?? silentLogger();
  const model = options.model ?? env["OPENAI_MODEL"];
  if (!model) throw new UsageError("openai mode needs --model (or OPENAI_MODEL)");
  const baseUrl = (env["OPENAI_BASE_URL"] ?? DEFAULT_BASE_URL).replace(/\/+$/, "");
  const apiKey = env["OPENAI_API_KEY"];
  if (!apiKey && baseUrl === DEFAULT_BASE_URL) throw new UsageError("openai mode needs OPENAI_API_KEY");
  const attempts = options.attempts ?? DEFAULT_ATTEMPTS;
  const backoffMs = options.backoffMs ?? DEFAULT_BACKOFF_MS;
  const requestTimeoutMs = options.requestTimeoutMs ?? DEFAULT_REQUEST_TIMEOUT_MS;

  return {
    mode: "openai",
    async solve(input, signal): Promise<SolverReply> {
      const body = JSON.stringify({
        model,
        messages: [
          { role: "system", content: SYSTEM_PROMPT },
          { role: "user", content: input.text },
        ],
      });
      let last = "";
      let lastStatus: number | null = null;
      for (let attempt = 0; attempt < attempts; attempt++) {
        let delay = Math.min(MAX_BACKOFF_MS, backoffMs * 2 ** attempt);
        try {
          const res = await fetch(`${baseUrl}/chat/completions`, {
            method: "POST",
            headers: { "content-type": "application/json", ...(apiKey ? { authorization: `Bearer ${apiKey}` } : {}) },
            body,
            signal: AbortSignal.any([signal, AbortSignal.timeout(requestTimeoutMs)]),
          });
          if (res.ok) {
            const json = (await res.json()) as { choices?: Array<{ message?: { content?: unknown } }> };
            const content = json.choices?.[0]?.message?.content;
            if (typeof content !== "string") throw new OpenAIError("chat completion without choices[0].message.content", res.status);
            return { text: content };
          }
          const text = (await res.text()).slice(0, 500);
          lastStatus = res.status;
          last = `HTTP ${res.status}: ${text}`;
          if (!isTransient(res.status)) throw new OpenAIError(`chat completion failed: ${last}`, res.status);
          const retryAfter = Number(res.headers.get("retry-after"));
          if (Number.isFinite(retryAfter) && retryAfter > 0) delay = Math.min(MAX_BACKOFF_MS, retryAfter * 1000);
        } catch (err) {
          if (err instanceof OpenAIError || signal.aborted) throw err;
          last = errorMessage(err); // network error or request timeout: transient
          lastStatus = null;
        }
        if (attempt + 1 < attempts) {
          logger.warn({ attempt: attempt + 1, delay_ms: delay, error: last }, "chat completion failed; retrying");
          await sleep(delay, signal);
        }
      }
      throw new OpenAIError(`chat completion failed after ${attempts} attempts: ${last}`, lastStatus);
    },
  };
}
