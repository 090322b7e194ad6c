/**
 * Terminal-Bench purples (RDI's dummy among them) answer ANY message, a
 * single-shot question too, with `{"kind": "final", "output": "..."}`: the
 * answer is the output. A single-shot reply that is exactly such an object
 * (a TextPart holding it, or a DataPart) is read as its output before any
 * code or diff is extracted, so the envelope's JSON is never taken for the
 * answer itself. Anything else is left as it is.
 */

/** The `output` of a final envelope (`""` when it has none), or undefined when `value` is not one. */
export function finalEnvelopeOutput(value: unknown): string | undefined {
  if (typeof value !== "object" || value === null || Array.isArray(value)) return undefined;
  const o = value as Record<string, unknown>;
  if (o["kind"] !== "final") return undefined;
  const output = o["output"];
  if (output === undefined || output === null) return "";
  return typeof output === "string" ? output : undefined;
}

/** `text` unwrapped when it is exactly a final envelope's JSON, else `text` unchanged. */
export function unwrapFinalEnvelope(text: string): string {
  const trimmed = text.trim();
  if (!trimmed.startsWith("{") || !trimmed.endsWith("}")) return text;
  try {
    return finalEnvelopeOutput(JSON.parse(trimmed)) ?? text;
  } catch {
    return text;
  }
}
