/**
 * The participant over A2A (the runner's `Participant` contract, participant.ts), on the
 * one SDK client factory, `createA2AClient` (client.ts): blocking `message/send` (0.3 wire
 * through legacyCompat, 1.0 natively) to the participant URL exactly as given (never the
 * card's), a per-request timeout, a cap on the reply's size (reply-limit.ts), and a bounded
 * retry on failed requests (never after a timeout or an oversized reply).
 *
 * Who failed: the agent card is fetched once, by `check`, before the first item; failing
 * there is ours to report (InfrastructureError: the run cannot start). Every failure after
 * it — a malformed or oversized reply, a JSON-RPC or HTTP error, a reset connection, a
 * timeout — is the participant's (ParticipantError; runner/participant-failure.ts scores it).
 */
import { randomUUID } from "node:crypto";
import type { Client } from "@a2a-js/sdk/client";
import { createA2AClient } from "./client.js";
import { addUsage, usageFromMetadata, type TokenUsage } from "../shared/usage.js";
import { addTraceabilityUsage, traceabilityUsageFromMetadata } from "../shared/traceability.js";
import { agentCardUrl } from "./agent-card-url.js";
import { CardFetchError, type CardFetchFailure } from "./card-fetch.js";
import { InfrastructureError } from "../../util/infrastructure-error.js";
import { DEFAULT_MAX_REPLY_BYTES, findReplyLimitError } from "./reply-limit.js";
import { Role, type Message, type Part, type Task } from "@a2a-js/sdk";
import { BenchError, errorMessage } from "../../util/errors.js";
import type { Logger } from "../../util/logger.js";
import type { Participant, ParticipantReply, ParticipantRequest } from "../shared/participant.js";
import { taskStateName } from "../shared/task-state-name.js";
import { finalEnvelopeOutput, unwrapFinalEnvelope } from "./final-envelope.js";

/** Transport attempts per request (1 + retries); spaced by RETRY_BASE_MS * 2^attempt. */
export const DEFAULT_ATTEMPTS = 3;
/** First retry delay, milliseconds (then doubled). */
export const RETRY_BASE_MS = 250;
/** Time limit of one agent-card fetch in the participant check, ms (a card is a small static document). */
export const CARD_CHECK_TIMEOUT_MS = 10_000;
/** Card failures worth another attempt (the agent may still be starting); the rest are final. */
const RETRYABLE_CARD_FAILURES: ReadonlySet<CardFetchFailure> = new Set([
  "connection_refused",
  "connection_reset",
  "timeout",
  "network",
]);

export interface A2AParticipantOptions {
  url: string;
  /** Per-request time limit, milliseconds. */
  timeoutMs: number;
  /** Attempts on transport errors; default {@link DEFAULT_ATTEMPTS}. */
  attempts?: number;
  /** Time limit of one agent-card fetch in `check`, ms; default {@link CARD_CHECK_TIMEOUT_MS}. */
  cardTimeoutMs?: number;
  /** Largest reply accepted, bytes; default {@link DEFAULT_MAX_REPLY_BYTES} (reply-limit.ts). */
  maxReplyBytes?: number;
  logger: Logger;
}

/** Longest error text kept from a failed request, characters (the SDK quotes whole HTTP error bodies). */
export const MAX_ERROR_CHARS = 500;

/** Participant failure that is not the agent's answer (unreachable, timeout, protocol error). */
export class ParticipantError extends BenchError {
  constructor(code: ParticipantErrorCode, message: string, options?: { cause?: unknown }) {
    super(code, message, options);
  }
}

/** Codes of {@link ParticipantError}: a late answer, a failed request, an oversized or too deeply nested reply, our stop. */
export type ParticipantErrorCode =
  | "E_PARTICIPANT_TIMEOUT"
  | "E_PARTICIPANT_TRANSPORT"
  | "E_PARTICIPANT_REPLY_TOO_LARGE"
  | "E_PARTICIPANT_REPLY_TOO_DEEP"
  | "E_PARTICIPANT_ABORTED";

function clip(text: string): string {
  return text.length > MAX_ERROR_CHARS ? `${text.slice(0, MAX_ERROR_CHARS)}…` : text;
}

function part(content: Part["content"], mediaType: string): Part {
  return { content, metadata: undefined, filename: "", mediaType };
}

/** Text and data of `parts`; a Terminal-Bench final envelope is read as its output (final-envelope.ts). */
function collect(parts: readonly Part[], texts: string[], data: Record<string, unknown>[]): void {
  for (const p of parts) {
    const envelope = p.content?.$case === "data" ? finalEnvelopeOutput(p.content.value) : undefined;
    if (p.content?.$case === "text") texts.push(unwrapFinalEnvelope(p.content.value));
    else if (envelope !== undefined) texts.push(envelope);
    else if (p.content?.$case === "data" && typeof p.content.value === "object" && p.content.value !== null) {
      data.push(p.content.value as Record<string, unknown>);
    }
  }
}

/** Flatten a SendMessage result (a Message or a Task) into text + data. */
export function replyFromResult(result: Message | Task): ParticipantReply {
  const texts: string[] = [];
  const data: Record<string, unknown>[] = [];
  if ("parts" in result && "role" in result) {
    collect(result.parts, texts, data);
    const traced = traceabilityUsageFromMetadata(result.metadata);
    return { text: texts.join("\n"), data, state: "message", ...(traced ? { traceability: traced } : {}) };
  }
  const task = result;
  let usage: TokenUsage | undefined;
  // A trace may sit on the task (an SDK merges status-event metadata there), an artifact or the status message.
  let traced = traceabilityUsageFromMetadata(task.metadata);
  for (const artifact of task.artifacts ?? []) {
    collect(artifact.parts, texts, data);
    usage = addUsage(usage, usageFromMetadata(artifact.metadata));
    traced = addTraceabilityUsage(traced, traceabilityUsageFromMetadata(artifact.metadata));
  }
  if (task.status?.message) {
    collect(task.status.message.parts, texts, data);
    usage = addUsage(usage, usageFromMetadata(task.status.message.metadata));
    traced = addTraceabilityUsage(traced, traceabilityUsageFromMetadata(task.status.message.metadata));
  }
  const state = taskStateName(task.status?.state);
  return {
    text: texts.join("\n"),
    data,
    state,
    ...(usage ? { usage } : {}),
    ...(traced ? { traceability: traced } : {}),
  };
}

/**
 * The SDK client of one participant, created lazily on first use (that fetches the agent card) and
 * shared by every request; a failed creation is forgotten so the next attempt fetches the card again.
 */
class LazyClient {
  private client: Promise<Client> | undefined;
  constructor(
    private readonly url: string,
    private readonly maxReplyBytes: number,
  ) {}

  get(signal?: AbortSignal): Promise<Client> {
    const options = { maxReplyBytes: this.maxReplyBytes, ...(signal ? { signal } : {}) };
    this.client ??= createA2AClient(this.url, "1.0", "JSONRPC", options).catch((err: unknown) => {
      this.client = undefined;
      throw err;
    });
    return this.client;
  }

  reset(): void {
    this.client = undefined;
  }
}

/** One blocking `message/send` of `req`: its text as a TextPart, its data as a DataPart. */
async function sendOnce(client: Client, req: ParticipantRequest, signal: AbortSignal): Promise<ParticipantReply> {
  const parts: Part[] = [part({ $case: "text", value: req.text }, "text/plain")];
  if (req.data) parts.push(part({ $case: "data", value: req.data }, "application/json"));
  const message: Message = {
    messageId: randomUUID(),
    contextId: "",
    taskId: "",
    role: Role.ROLE_USER,
    parts,
    metadata: req.metadata,
    extensions: [],
    referenceTaskIds: [],
  };
  const result = await client.sendMessage(
    {
      tenant: "",
      message,
      configuration: {
        acceptedOutputModes: ["text/plain", "application/json"],
        taskPushNotificationConfig: undefined,
        returnImmediately: false,
      },
      metadata: undefined,
    },
    { signal },
  );
  return replyFromResult(result);
}

/** The participant check: fetch the agent card, retrying only failures worth another attempt. */
async function checkCard(
  options: A2AParticipantOptions,
  client: LazyClient,
  attempts: number,
  outerSignal: AbortSignal,
): Promise<void> {
  let lastError: unknown;
  for (let attempt = 0; attempt < attempts; attempt++) {
    if (outerSignal.aborted) throw new ParticipantError("E_PARTICIPANT_ABORTED", "run stopped");
    try {
      await client.get(
        AbortSignal.any([outerSignal, AbortSignal.timeout(options.cardTimeoutMs ?? CARD_CHECK_TIMEOUT_MS)]),
      );
      return;
    } catch (err) {
      if (outerSignal.aborted) throw new ParticipantError("E_PARTICIPANT_ABORTED", "run stopped", { cause: err });
      lastError = err;
      if (err instanceof CardFetchError && !RETRYABLE_CARD_FAILURES.has(err.failure)) break;
      if (attempt + 1 < attempts) await sleep(RETRY_BASE_MS * 2 ** attempt, outerSignal);
    }
  }
  throw unreachable(options.url, lastError);
}

/** The card could not be had: our side cannot run the assessment (no score, the run ends `error`). */
function unreachable(url: string, cause: unknown): InfrastructureError {
  return new InfrastructureError(
    "E_PARTICIPANT_UNREACHABLE",
    `participant ${url} is unreachable: ${errorMessage(cause)}`,
    {
      cause,
      fix: `start the participant agent or correct its URL; its agent card must be served at ${agentCardUrl(url)}`,
    },
  );
}

/**
 * Why a question ended on the caller's signal: the caller's own answer deadline (an
 * `AbortSignal.timeout` among its signals: the participant was too slow, its failure), else our stop.
 */
function stopped(options: A2AParticipantOptions, signal: AbortSignal, cause?: unknown): ParticipantError {
  const reason: unknown = signal.reason;
  if (reason instanceof Error && reason.name === "TimeoutError") {
    return new ParticipantError("E_PARTICIPANT_TIMEOUT", `no answer from ${options.url} within the item's time limit`, {
      cause: cause ?? reason,
    });
  }
  return new ParticipantError("E_PARTICIPANT_ABORTED", "run stopped", cause !== undefined ? { cause } : undefined);
}

/** The client whose card `check` fetched; a card that cannot be had even now is ours to report. */
async function cardChecked(options: A2AParticipantOptions, client: LazyClient, signal: AbortSignal): Promise<Client> {
  try {
    return await client.get(signal);
  } catch (err) {
    if (signal.aborted) throw new ParticipantError("E_PARTICIPANT_ABORTED", "run stopped", { cause: err });
    throw unreachable(options.url, err);
  }
}

/**
 * One question with a per-request time limit, retried on failed requests (never after a
 * timeout or an oversized reply); what still fails is a ParticipantError (see the module note).
 */
async function askWithRetry(
  options: A2AParticipantOptions,
  client: LazyClient,
  attempts: number,
  req: ParticipantRequest,
  outerSignal: AbortSignal,
): Promise<ParticipantReply> {
  const sdkClient = await cardChecked(options, client, outerSignal);
  let lastError: unknown;
  for (let attempt = 0; attempt < attempts; attempt++) {
    if (outerSignal.aborted) throw stopped(options, outerSignal);
    const timeout = AbortSignal.timeout(options.timeoutMs);
    const signal = AbortSignal.any([outerSignal, timeout]);
    try {
      return await sendOnce(sdkClient, req, signal);
    } catch (err) {
      if (outerSignal.aborted) throw stopped(options, outerSignal, err);
      if (timeout.aborted) {
        // A timed-out answer is the agent's slowness, not a transport hiccup: no retry.
        throw new ParticipantError(
          "E_PARTICIPANT_TIMEOUT",
          `no answer from ${options.url} within ${options.timeoutMs / 1000} s`,
          { cause: err },
        );
      }
      const refused = findReplyLimitError(err);
      // Asking again would only read another oversized (or too deep) reply.
      if (refused) throw new ParticipantError(refused.code as ParticipantErrorCode, refused.message, { cause: err });
      lastError = err;
      options.logger.warn({ attempt: attempt + 1, err: clip(errorMessage(err)) }, "participant request failed");
      if (attempt + 1 < attempts) await sleep(RETRY_BASE_MS * 2 ** attempt, outerSignal);
    }
  }
  throw new ParticipantError(
    "E_PARTICIPANT_TRANSPORT",
    `participant ${options.url} failed after ${attempts} attempts: ${clip(errorMessage(lastError))}`,
    { cause: lastError },
  );
}

/** Create a participant bound to `url`. The agent card is fetched lazily, once. */
export function createA2AParticipant(options: A2AParticipantOptions): Participant {
  const attempts = options.attempts ?? DEFAULT_ATTEMPTS;
  const client = new LazyClient(options.url, options.maxReplyBytes ?? DEFAULT_MAX_REPLY_BYTES);
  return {
    url: options.url,
    check: (signal) => checkCard(options, client, attempts, signal),
    ask: (req, signal) => askWithRetry(options, client, attempts, req, signal),
    client: (signal) => client.get(signal),
    close: () => {
      client.reset();
      return Promise.resolve();
    },
  };
}

function sleep(ms: number, signal: AbortSignal): Promise<void> {
  return new Promise((resolve) => {
    const timer = setTimeout(done, ms);
    function done(): void {
      clearTimeout(timer);
      signal.removeEventListener("abort", done);
      resolve();
    }
    signal.addEventListener("abort", done, { once: true });
  });
}
