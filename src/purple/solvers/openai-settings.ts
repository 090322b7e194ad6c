/**
 * Settings of the purple `openai` mode, validated once at the entry (the purple
 * CLI parser and the env read at start-up) with messages naming the flag or
 * variable. Inside the solver the types are trusted.
 *
 * Ranges follow the OpenAI chat-completions reference: temperature 0–2,
 * top_p in (0, 1], max_tokens / max_completion_tokens ≥ 1, seed an integer.
 */
import { UsageError } from "../../util/errors.js";

export const DEFAULT_BASE_URL = "https://api.openai.com/v1";
/** One HTTP request's time limit, seconds (long completions take a while; the client's own default is 600). */
export const DEFAULT_TIMEOUT_SECONDS = 120;
/** Retries of a request the client deems transient (429, 408, 409, 5xx, connection errors, timeouts). */
export const DEFAULT_MAX_RETRIES = 4;
/** Extra asks when a reply carries no content (and no refusal, and was not cut by the token limit). */
export const DEFAULT_EMPTY_REPLY_RETRIES = 1;

export const DEFAULT_SYSTEM_PROMPT =
  "You are a careful software engineer. Answer the task exactly as asked; put code in one fenced code block.";

/** Sampling and client settings given on the command line (all optional; numbers already checked). */
export interface OpenAIFlagValues {
  baseUrl?: string;
  temperature?: number;
  topP?: number;
  maxTokens?: number;
  maxCompletionTokens?: number;
  seed?: number;
  /** `""` sends no system message. */
  systemPrompt?: string;
  timeoutSeconds?: number;
  maxRetries?: number;
  emptyReplyRetries?: number;
}

/** Everything the solver needs, resolved from flags, then env, then defaults. */
export interface OpenAISettings {
  model: string;
  baseUrl: string;
  /** Undefined only for a non-default base URL (local servers take any key). */
  apiKey: string | undefined;
  temperature: number | undefined;
  topP: number | undefined;
  maxTokens: number | undefined;
  maxCompletionTokens: number | undefined;
  seed: number | undefined;
  systemPrompt: string;
  timeoutMs: number;
  maxRetries: number;
  emptyReplyRetries: number;
}

/** The parseArgs option table of the openai flags (string-typed: numbers are checked by {@link parseOpenAIFlags}). */
export const OPENAI_FLAG_OPTIONS = {
  "base-url": { type: "string" },
  temperature: { type: "string" },
  "top-p": { type: "string" },
  "max-tokens": { type: "string" },
  "max-completion-tokens": { type: "string" },
  seed: { type: "string" },
  "system-prompt": { type: "string" },
  "timeout-seconds": { type: "string" },
  "max-retries": { type: "string" },
  "empty-reply-retries": { type: "string" },
} as const;

function number(raw: string, name: string, what: string, ok: (v: number) => boolean): number {
  const v = raw.trim() === "" ? Number.NaN : Number(raw);
  if (!Number.isFinite(v) || !ok(v)) throw new UsageError(`${name} must be ${what}, got "${raw}"`);
  return v;
}

const isInt = (v: number): boolean => Number.isSafeInteger(v);

/** Check one numeric setting; `name` is the flag or env variable named in the message. */
export const check = {
  temperature: (raw: string, name = "--temperature") =>
    number(raw, name, "a number from 0 to 2", (v) => v >= 0 && v <= 2),
  topP: (raw: string, name = "--top-p") =>
    number(raw, name, "a number greater than 0 and at most 1", (v) => v > 0 && v <= 1),
  positiveInt: (raw: string, name: string) => number(raw, name, "a positive integer", (v) => isInt(v) && v >= 1),
  seed: (raw: string, name = "--seed") => number(raw, name, "an integer", isInt),
  timeoutSeconds: (raw: string, name = "--timeout-seconds") =>
    number(raw, name, "a positive number of seconds", (v) => v > 0),
  retries: (raw: string, name: string) => number(raw, name, "a non-negative integer", (v) => isInt(v) && v >= 0),
};

/** Parse the raw flag values (parseArgs output) into checked settings; throws UsageError naming the flag. */
export function parseOpenAIFlags(values: Record<string, unknown>): OpenAIFlagValues {
  const str = (k: keyof typeof OPENAI_FLAG_OPTIONS): string | undefined => values[k] as string | undefined;
  const out: OpenAIFlagValues = {};
  const baseUrl = str("base-url");
  if (baseUrl !== undefined) out.baseUrl = checkBaseUrl(baseUrl, "--base-url");
  const t = str("temperature");
  if (t !== undefined) out.temperature = check.temperature(t);
  const p = str("top-p");
  if (p !== undefined) out.topP = check.topP(p);
  const mt = str("max-tokens");
  if (mt !== undefined) out.maxTokens = check.positiveInt(mt, "--max-tokens");
  const mct = str("max-completion-tokens");
  if (mct !== undefined) out.maxCompletionTokens = check.positiveInt(mct, "--max-completion-tokens");
  if (out.maxTokens !== undefined && out.maxCompletionTokens !== undefined) {
    throw new UsageError(
      "--max-tokens and --max-completion-tokens are exclusive (reasoning models take only --max-completion-tokens)",
    );
  }
  const seed = str("seed");
  if (seed !== undefined) out.seed = check.seed(seed);
  const sp = str("system-prompt");
  if (sp !== undefined) out.systemPrompt = sp;
  const ts = str("timeout-seconds");
  if (ts !== undefined) out.timeoutSeconds = check.timeoutSeconds(ts);
  const mr = str("max-retries");
  if (mr !== undefined) out.maxRetries = check.retries(mr, "--max-retries");
  const er = str("empty-reply-retries");
  if (er !== undefined) out.emptyReplyRetries = check.retries(er, "--empty-reply-retries");
  return out;
}

/** Names of the openai flags that were given (for "applies to --mode openai only"). */
export function givenOpenAIFlags(values: Record<string, unknown>): string[] {
  return Object.keys(OPENAI_FLAG_OPTIONS)
    .filter((k) => values[k] !== undefined)
    .map((k) => `--${k}`);
}

function checkBaseUrl(raw: string, name: string): string {
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    throw new UsageError(`${name} must be an http(s) URL such as http://127.0.0.1:8000/v1, got "${raw}"`);
  }
  if (url.protocol !== "http:" && url.protocol !== "https:") {
    throw new UsageError(`${name} must be an http(s) URL such as http://127.0.0.1:8000/v1, got "${raw}"`);
  }
  return raw.replace(/\/+$/, "");
}

/**
 * Resolve the settings: flags win, then env (`OPENAI_MODEL`, `OPENAI_BASE_URL`,
 * `OPENAI_API_KEY`, `OPENAI_TIMEOUT_SECONDS`, `OPENAI_MAX_RETRIES`), then
 * defaults. Throws UsageError naming what is missing or malformed (and `mode`, the purple mode asking).
 */
export function resolveOpenAISettings(
  model: string | undefined,
  flags: OpenAIFlagValues,
  env: NodeJS.ProcessEnv,
  mode = "openai",
): OpenAISettings {
  const name = model ?? env["OPENAI_MODEL"];
  if (!name) throw new UsageError(`${mode} mode needs --model (or OPENAI_MODEL)`);
  const envBase = env["OPENAI_BASE_URL"];
  const baseUrl = flags.baseUrl ?? (envBase ? checkBaseUrl(envBase, "OPENAI_BASE_URL") : DEFAULT_BASE_URL);
  const apiKey = env["OPENAI_API_KEY"] || undefined;
  if (!apiKey && baseUrl === DEFAULT_BASE_URL)
    throw new UsageError(
      `${mode} mode needs OPENAI_API_KEY for the default endpoint (or --base-url for a local server)`,
    );
  const envTimeout = env["OPENAI_TIMEOUT_SECONDS"];
  const timeoutSeconds =
    flags.timeoutSeconds ??
    (envTimeout ? check.timeoutSeconds(envTimeout, "OPENAI_TIMEOUT_SECONDS") : DEFAULT_TIMEOUT_SECONDS);
  const envRetries = env["OPENAI_MAX_RETRIES"];
  const maxRetries =
    flags.maxRetries ?? (envRetries ? check.retries(envRetries, "OPENAI_MAX_RETRIES") : DEFAULT_MAX_RETRIES);
  return {
    model: name,
    baseUrl,
    apiKey,
    temperature: flags.temperature,
    topP: flags.topP,
    maxTokens: flags.maxTokens,
    maxCompletionTokens: flags.maxCompletionTokens,
    seed: flags.seed,
    systemPrompt: flags.systemPrompt ?? DEFAULT_SYSTEM_PROMPT,
    timeoutMs: Math.round(timeoutSeconds * 1000),
    maxRetries,
    emptyReplyRetries: flags.emptyReplyRetries ?? DEFAULT_EMPTY_REPLY_RETRIES,
  };
}
