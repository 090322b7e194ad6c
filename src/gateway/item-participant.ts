/**
 * The participant as one item sees it when the assessment has a gateway: every
 * question of the item carries the item's grant (`model_gateway`: base URL,
 * bearer token, models) in the message's metadata and in its DataPart. The
 * token is the item's alone and is revoked when the item ends, so the calls it
 * pays for are this item's.
 */
import type { Participant } from "../a2a/shared/participant.js";
import type { GatewayGrant } from "./assessment-gateway.js";

/** Key of the grant in the item message's metadata and DataPart. */
export const GATEWAY_GRANT_KEY = "model_gateway";

export function itemParticipant(inner: Participant, grant: GatewayGrant): Participant {
  return {
    url: inner.url,
    ask: (req, signal) =>
      inner.ask(
        {
          ...req,
          data: { ...req.data, [GATEWAY_GRANT_KEY]: grant },
          metadata: { ...req.metadata, [GATEWAY_GRANT_KEY]: grant },
        },
        signal,
      ),
    ...(inner.check ? { check: inner.check.bind(inner) } : {}),
    ...(inner.client ? { client: inner.client.bind(inner) } : {}),
    // The run's participant is closed by the run, not by one item.
    close: () => Promise.resolve(),
  };
}
