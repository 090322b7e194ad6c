/**
 * SDK client the way an AgentBeats client talks to a green agent: the card is
 * fetched without an `A2A-Version` header (the 0.3 card, as the Python 0.3
 * SDK sees it), so the legacy-compat JSON-RPC transport is chosen and the
 * request goes out as `message/stream`.
 */
import {
  ClientFactory,
  ClientFactoryOptions,
  DefaultAgentCardResolver,
  JsonRpcTransportFactory,
  type Client,
} from "@a2a-js/sdk/client";
import { BenchError } from "../util/errors.js";
import { AGENT_CARD_PATH } from "../scenario/spec.js";

/** Build a client for the agent at `baseUrl` using `fetchImpl` for every call (card and JSON-RPC). */
export async function createLegacyClient(baseUrl: string, fetchImpl: typeof fetch): Promise<Client> {
  const resolver = new DefaultAgentCardResolver({ legacyCompat: { enabled: true }, fetchImpl });
  const factory = new ClientFactory(
    ClientFactoryOptions.createFrom(ClientFactoryOptions.default, {
      cardResolver: resolver,
      transports: [new JsonRpcTransportFactory({ legacyCompat: { enabled: true }, fetchImpl })],
    }),
  );
  const cardUrl = new URL(AGENT_CARD_PATH, baseUrl.endsWith("/") ? baseUrl : baseUrl + "/").href;
  const res = await fetchImpl(cardUrl, { signal: AbortSignal.timeout(10_000) });
  if (!res.ok) throw new BenchError("E_CARD", `${cardUrl}: HTTP ${res.status}`);
  const card = resolver.normalizeAgentCard(await res.json());
  // A card may list a 1.0 and a 0.3 interface; the factory would take the first. AgentBeats' client
  // speaks 0.3 (message/stream), so keep only the 0.3 interfaces when there are any.
  const legacy = card.supportedInterfaces.filter((i) => i.protocolVersion.startsWith("0."));
  return factory.createFromAgentCard(legacy.length > 0 ? { ...card, supportedInterfaces: legacy } : card);
}
