/**
 * A purple agent's brain: given what the participant was asked (text and
 * structured data), produce a reply. The A2A executor wraps a Solver; modes
 * (echo, gold, openai) are Solvers.
 */
import type { TokenUsage } from "../a2a/shared/usage.js";
export interface SolverInput {
  /** Concatenated text parts of the incoming message. */
  text: string;
  /** First DataPart's data, if any (benchmarks put task id, entry point, ... here). */
  data: Record<string, unknown> | undefined;
  /** Message metadata, if any. */
  metadata: Record<string, unknown> | undefined;
  /** The A2A contextId of the task (interactive modes keep an episode per context). */
  contextId?: string;
}

export interface SolverReply {
  /** Text answer (code, diff, prose). */
  text?: string;
  /** Structured answer, published as a DataPart. */
  data?: Record<string, unknown>;
  /** Tokens the answer cost; sent in the reply artifact's metadata (src/a2a/shared/usage.ts). */
  usage?: TokenUsage;
  /** Facts about the answer (model, finish reason), sent in the reply artifact's metadata. */
  metadata?: Record<string, unknown>;
  /** The reply artifact's name (default `response`): AgentSWE's green reads its action there. */
  artifactName?: string;
}

/** Tokens a failed answer still cost, when the solver's error carries them (`usage` on the error). */
export function usageOfError(err: unknown): TokenUsage | undefined {
  const usage = typeof err === "object" && err !== null ? (err as { usage?: unknown }).usage : undefined;
  return typeof usage === "object" && usage !== null ? (usage as TokenUsage) : undefined;
}

export interface Solver {
  readonly mode: string;
  solve(input: SolverInput, signal: AbortSignal): Promise<SolverReply>;
}
