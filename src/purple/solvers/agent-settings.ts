/**
 * Limits of the purple `agent` mode, checked once at the entry (the purple
 * CLI parser) with messages naming the flag. The chat client's own settings
 * (model, base URL, key, timeouts, retries, sampling) are the `openai` mode's
 * (openai-settings.ts).
 */
import { UsageError } from "../../util/errors.js";
import { check } from "./openai-settings.js";

/** Model calls per episode (a malformed tool call costs one too). */
export const DEFAULT_MAX_STEPS = 50;

/** Checked agent flags. */
export interface AgentFlagValues {
  maxSteps?: number;
  /** USD per episode; needs both prices. */
  maxCostUsd?: number;
  /** USD per million prompt tokens. */
  inputPricePerMTok?: number;
  /** USD per million completion tokens. */
  outputPricePerMTok?: number;
}

/** What the agent loop needs. */
export interface AgentLimits {
  maxSteps: number;
  /** Undefined: no cost limit. */
  maxCostUsd: number | undefined;
  /** Undefined: only tokens are counted (no prices given). */
  prices: { inputPerMTok: number; outputPerMTok: number } | undefined;
}

export const AGENT_FLAG_OPTIONS = {
  "max-steps": { type: "string" },
  "max-cost": { type: "string" },
  "input-price": { type: "string" },
  "output-price": { type: "string" },
} as const;

const nonNegative = (raw: string, name: string): number => {
  const v = raw.trim() === "" ? Number.NaN : Number(raw);
  if (!Number.isFinite(v) || v < 0) throw new UsageError(`${name} must be a non-negative number (USD), got "${raw}"`);
  return v;
};

/** Parse the raw agent flag values (parseArgs output); throws UsageError naming the flag. */
export function parseAgentFlags(values: Record<string, unknown>): AgentFlagValues {
  const str = (k: keyof typeof AGENT_FLAG_OPTIONS): string | undefined => values[k] as string | undefined;
  const out: AgentFlagValues = {};
  const steps = str("max-steps");
  if (steps !== undefined) out.maxSteps = check.positiveInt(steps, "--max-steps");
  const cost = str("max-cost");
  if (cost !== undefined) out.maxCostUsd = nonNegative(cost, "--max-cost");
  const inPrice = str("input-price");
  if (inPrice !== undefined) out.inputPricePerMTok = nonNegative(inPrice, "--input-price");
  const outPrice = str("output-price");
  if (outPrice !== undefined) out.outputPricePerMTok = nonNegative(outPrice, "--output-price");
  if ((out.inputPricePerMTok === undefined) !== (out.outputPricePerMTok === undefined))
    throw new UsageError("--input-price and --output-price go together (USD per million prompt / completion tokens)");
  if (out.maxCostUsd !== undefined && out.inputPricePerMTok === undefined)
    throw new UsageError("--max-cost needs --input-price and --output-price (the cost is computed from token usage)");
  return out;
}

/** Names of the agent flags that were given (for "applies to --mode agent only"). */
export function givenAgentFlags(values: Record<string, unknown>): string[] {
  return Object.keys(AGENT_FLAG_OPTIONS)
    .filter((k) => values[k] !== undefined)
    .map((k) => `--${k}`);
}

/** The limits of checked flags, defaults filled. */
export function agentLimits(flags: AgentFlagValues = {}): AgentLimits {
  return {
    maxSteps: flags.maxSteps ?? DEFAULT_MAX_STEPS,
    maxCostUsd: flags.maxCostUsd,
    prices:
      flags.inputPricePerMTok !== undefined && flags.outputPricePerMTok !== undefined
        ? { inputPerMTok: flags.inputPricePerMTok, outputPerMTok: flags.outputPricePerMTok }
        : undefined,
  };
}
