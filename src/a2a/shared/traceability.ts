/**
 * Usage a participant reports through A2A's Traceability extension (a2a-samples
 * `extensions/traceability/v1`): a `ResponseTrace` (`trace_id`, `steps`) in the
 * metadata of a message, an artifact or the task, under
 * {@link TRACEABILITY_METADATA_KEYS}. Each step may carry `total_tokens` and
 * `cost` (integers); a step invoking another agent may nest that agent's trace.
 * The sample implementation serialises snake_case; camelCase (the A2A SDKs'
 * JSON aliases) is read too. Only the top-level steps are summed: a nested
 * trace details its parent step, whose own counts already include it.
 *
 * It is the participant's word, like `usage` in its metadata: recorded with
 * source `traceability`, never as measured.
 */
import type { Participant } from "./participant.js";

/** The extension's URI (what a client lists in `X-A2A-Extensions` to ask for traces). */
export const TRACEABILITY_EXTENSION_URI = "https://github.com/a2aproject/a2a-samples/extensions/traceability/v1";

/**
 * Metadata keys a trace is found under: the spec's current key, and the one an earlier revision of the spec
 * named (copied from the timestamp extension's), which agents built then may still send.
 */
export const TRACEABILITY_METADATA_KEYS = [
  "github.com/a2aproject/a2a-samples/extensions/traceability/v1/traceability",
  "github.com/a2aproject/a2a-samples/samples/extensions/timestamp/v1/timestamp",
] as const;

/** What a trace says the answer cost: summed over its top-level steps. */
export interface TraceabilityUsage {
  source: "traceability";
  /** Sum of the steps' `total_tokens` (steps without one count 0). */
  total_tokens: number;
  /** Sum of the steps' `cost`, in the agent's own unit (the extension does not fix one); absent when no step had one. */
  cost?: number;
  /** Top-level steps read. */
  steps: number;
}

function isRecord(v: unknown): v is Record<string, unknown> {
  return typeof v === "object" && v !== null && !Array.isArray(v);
}

/** A non-negative integer field, snake_case or camelCase; int64 may arrive as a decimal string. */
function count(step: Record<string, unknown>, snake: string, camel: string): number | undefined {
  const raw = step[snake] ?? step[camel];
  const v = typeof raw === "string" && /^\d+$/.test(raw) ? Number(raw) : raw;
  return typeof v === "number" && Number.isSafeInteger(v) && v >= 0 ? v : undefined;
}

/** The usage of one ResponseTrace object, or undefined when it is not one (no `steps` array). */
export function usageOfTrace(trace: unknown): TraceabilityUsage | undefined {
  if (!isRecord(trace) || !Array.isArray(trace["steps"])) return undefined;
  let tokens = 0;
  let cost: number | undefined;
  let steps = 0;
  for (const step of trace["steps"] as unknown[]) {
    if (!isRecord(step)) continue;
    // A child step (its parent among the steps) is part of its parent's counts.
    const parent = step["parent_step_id"] ?? step["parentStepId"];
    if (typeof parent === "string" && parent !== "") continue;
    steps++;
    tokens += count(step, "total_tokens", "totalTokens") ?? 0;
    const c = count(step, "cost", "cost");
    if (c !== undefined) cost = (cost ?? 0) + c;
  }
  return { source: "traceability", total_tokens: tokens, ...(cost !== undefined ? { cost } : {}), steps };
}

/** The usage of the trace in `metadata` (under either key), or undefined when there is none. */
export function traceabilityUsageFromMetadata(
  metadata: Record<string, unknown> | undefined,
): TraceabilityUsage | undefined {
  for (const key of TRACEABILITY_METADATA_KEYS) {
    const usage = usageOfTrace(metadata?.[key]);
    if (usage) return usage;
  }
  return undefined;
}

/** Sum of two reports (undefined when both are). */
export function addTraceabilityUsage(
  a: TraceabilityUsage | undefined,
  b: TraceabilityUsage | undefined,
): TraceabilityUsage | undefined {
  if (!a) return b;
  if (!b) return a;
  const cost = a.cost === undefined && b.cost === undefined ? undefined : (a.cost ?? 0) + (b.cost ?? 0);
  return {
    source: "traceability",
    total_tokens: a.total_tokens + b.total_tokens,
    ...(cost !== undefined ? { cost } : {}),
    steps: a.steps + b.steps,
  };
}

/** `inner` with the Traceability usage of every reply summed, for one item (`total()`). */
export function tracedParticipant(inner: Participant): {
  participant: Participant;
  total(): TraceabilityUsage | undefined;
} {
  let sum: TraceabilityUsage | undefined;
  return {
    participant: {
      ...inner,
      ask: async (req, signal) => {
        const reply = await inner.ask(req, signal);
        sum = addTraceabilityUsage(sum, reply.traceability);
        return reply;
      },
      // The run's participant is closed by the run, not by one item.
      close: () => Promise.resolve(),
    },
    total: () => sum,
  };
}
