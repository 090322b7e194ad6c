/**
 * The participant of an episode over A2A: ONE blocking `message/send` per
 * turn to the participant URL exactly as given (the card's URLs are pinned to
 * it, client.ts), every reply body capped (reply-limit.ts), no retry (a turn
 * re-sent could run the participant's step twice). The episode builds each
 * message (contextId, taskId: episode.ts) and owns the time limits: the
 * signal it passes ends the request.
 *
 * The SDK client is the run's when one is given (`client`: the run's
 * participant, whose card was fetched once, by its check), so the card is
 * fetched once per run, not once per episode; without one the sender makes
 * its own on the first send.
 *
 * Failures are the participant's (ParticipantError): an unreachable card, a
 * transport or JSON-RPC error, an oversized or too deeply nested reply. An
 * aborted request rethrows the abort as it came; the episode knows whose
 * signal fired.
 */
import type { Message, Task } from "@a2a-js/sdk";
import type { Client } from "@a2a-js/sdk/client";
import { createA2AClient } from "../a2a/client/client.js";
import { DEFAULT_MAX_REPLY_BYTES, findReplyLimitError } from "../a2a/client/reply-limit.js";
import { MAX_ERROR_CHARS, ParticipantError, type ParticipantErrorCode } from "../a2a/client/participant-client.js";
import { errorMessage } from "../util/errors.js";

/** Sends one message of the episode and returns the participant's reply (a Task or a Message). */
export interface TurnSender {
  send(message: Message, signal: AbortSignal): Promise<Message | Task>;
}

export interface A2ATurnSenderOptions {
  /** The participant's URL, used exactly as given. */
  url: string;
  /** Largest reply accepted, bytes; default {@link DEFAULT_MAX_REPLY_BYTES}. Unused with `client`. */
  maxReplyBytes?: number;
  /** The run's SDK client for `url` (Participant.client), shared by every episode of the run. */
  client?: (signal: AbortSignal) => Promise<Client>;
}

function clip(text: string): string {
  return text.length > MAX_ERROR_CHARS ? `${text.slice(0, MAX_ERROR_CHARS)}…` : text;
}

/** A TurnSender on the project's SDK client: the run's (`client`), else its own, whose card is fetched once. */
export function createA2ATurnSender(options: A2ATurnSenderOptions): TurnSender {
  const maxReplyBytes = options.maxReplyBytes ?? DEFAULT_MAX_REPLY_BYTES;
  let client: Promise<Client> | undefined;
  const own = (signal: AbortSignal): Promise<Client> => {
    client ??= createA2AClient(options.url, "1.0", "JSONRPC", { maxReplyBytes, signal }).catch((err: unknown) => {
      client = undefined;
      throw err;
    });
    return client;
  };
  const clientFor = options.client ?? own;
  return {
    async send(message, signal) {
      let sdk: Client;
      try {
        sdk = await clientFor(signal);
      } catch (err) {
        if (signal.aborted) throw err;
        throw new ParticipantError(
          "E_PARTICIPANT_TRANSPORT",
          `agent card of ${options.url}: ${clip(errorMessage(err))}`,
          { cause: err },
        );
      }
      try {
        return await sdk.sendMessage(
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
      } catch (err) {
        if (signal.aborted) throw err;
        const refused = findReplyLimitError(err);
        if (refused) throw new ParticipantError(refused.code as ParticipantErrorCode, refused.message, { cause: err });
        throw new ParticipantError(
          "E_PARTICIPANT_TRANSPORT",
          `participant ${options.url}: ${clip(errorMessage(err))}`,
          { cause: err },
        );
      }
    },
  };
}
