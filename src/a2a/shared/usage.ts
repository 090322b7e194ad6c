/**
 * Token usage a participant reports with an answer: the wire shape is
 * schemas/token_usage.schema.json, carried under {@link USAGE_METADATA_KEY} of
 * the reply artifact's metadata (not as a part, so answer parsing never sees
 * it). The purple `openai` mode writes it; the runner reads it per answer.
 */
import { checkAgainst } from "../../util/schema.js";

/** Key of the usage object in an artifact's metadata. */
export const USAGE_METADATA_KEY = "usage";
export const TOKEN_USAGE_SCHEMA_FILE = "token_usage.schema.json";

/** schemas/token_usage.schema.json */
export interface TokenUsage {
  prompt_tokens: number;
  completion_tokens: number;
  total_tokens: number;
  reasoning_tokens?: number;
  requests?: number;
}

/**
 * The usage in a reply artifact's metadata, or undefined when there is none or
 * it does not fit the schema (a participant's malformed report is dropped, not
 * trusted, and never fails the item).
 */
export function usageFromMetadata(metadata: Record<string, unknown> | undefined): TokenUsage | undefined {
  const value = metadata?.[USAGE_METADATA_KEY];
  if (value === undefined) return undefined;
  return checkAgainst(TOKEN_USAGE_SCHEMA_FILE, value).length === 0 ? (value as TokenUsage) : undefined;
}

/** Field-wise sum (undefined when both are). */
export function addUsage(a: TokenUsage | undefined, b: TokenUsage | undefined): TokenUsage | undefined {
  if (!a) return b;
  if (!b) return a;
  const sum: TokenUsage = {
    prompt_tokens: a.prompt_tokens + b.prompt_tokens,
    completion_tokens: a.completion_tokens + b.completion_tokens,
    total_tokens: a.total_tokens + b.total_tokens,
    requests: (a.requests ?? 1) + (b.requests ?? 1),
  };
  if (a.reasoning_tokens !== undefined || b.reasoning_tokens !== undefined)
    sum.reasoning_tokens = (a.reasoning_tokens ?? 0) + (b.reasoning_tokens ?? 0);
  return sum;
}
