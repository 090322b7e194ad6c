/**
 * The participant (purple agent) as the runner sees it: ask one question over
 * A2A, get the reply's text and data back. Implemented on the SDK client.
 */
import type { Client } from "@a2a-js/sdk/client";
import type { TokenUsage } from "./usage.js";
import type { TraceabilityUsage } from "./traceability.js";
export interface ParticipantRequest {
  /** The prompt, sent as a TextPart. */
  text: string;
  /** Structured task data (task id, entry point, ...), sent as a DataPart. */
  data?: Record<string, unknown>;
  /** Message metadata. */
  metadata?: Record<string, unknown>;
}

export interface ParticipantReply {
  /** All text parts of the reply (artifacts and final message), joined by newlines. */
  text: string;
  /** DataParts of the reply, in order. */
  data: Record<string, unknown>[];
  /** Final task state as a v0.3 string ("completed", "failed", ...), or "message" for a direct message reply. */
  state: string;
  /** Tokens the participant says the answer cost (`usage` in the metadata of its artifacts and final status message, src/a2a/shared/usage.ts), summed. */
  usage?: TokenUsage;
  /** Tokens (and cost) the participant reports through the A2A Traceability extension (traceability.ts), summed. */
  traceability?: TraceabilityUsage;
}

export interface Participant {
  readonly url: string;
  ask(req: ParticipantRequest, signal: AbortSignal): Promise<ParticipantReply>;
  /**
   * Optional: prove the participant is there before the first item (fetch its
   * agent card). Rejects with InfrastructureError `E_PARTICIPANT_UNREACHABLE`
   * naming the URL and the cause; the runner then ends the run as an error.
   */
  check?(signal: AbortSignal): Promise<void>;
  /**
   * Optional: the SDK client behind `ask` (its agent card fetched once, by `check` or the first use), for
   * callers that send whole A2A messages themselves (interactive episodes): the card is then fetched once
   * per run, not once per episode. Rejects as the card fetch does (CardFetchError).
   */
  client?(signal: AbortSignal): Promise<Client>;
  close(): Promise<void>;
}
