/**
 * SDK client factory for either wire version and either binding. `1.0` goes
 * through the SDK's ClientFactory (card resolved with legacyCompat), preferring
 * the requested binding; `0.3` uses the SDK's legacy transport of that binding
 * against the card's 0.3 interface: header-less JSON-RPC `message/send`,
 * `message/stream`, `tasks/*` (what AgentBeats clients use) or the 0.3 REST
 * paths (`/v1/message:send`, ...).
 *
 * The card is looked up under the URL's path (agent-card-url.ts), so an agent
 * served under a prefix (`http://gateway:8080/purple`) is found with or
 * without the trailing slash, and a failed lookup says why (card-fetch.ts).
 */
import {
  Client,
  ClientFactory,
  ClientFactoryOptions,
  DefaultAgentCardResolver,
  JsonRpcTransportFactory,
  RestTransportFactory,
} from "@a2a-js/sdk/client";
import { LegacyJsonRpcTransport, LegacyRestTransport } from "@a2a-js/sdk/compat/v0_3/client";
import { agentCardUrl } from "./agent-card-url.js";
import { fetchCardResponse } from "./card-fetch.js";

export type WireVersion = "1.0" | "0.3";
/** The A2A protocol binding the client speaks (the card's `protocolBinding` names). */
export type Binding = "JSONRPC" | "HTTP+JSON";

export interface A2AClientOptions {
  /** Bounds the card fetch (not the later calls). */
  signal?: AbortSignal;
}

/**
 * Create a client for the agent at `baseUrl` speaking the given wire version (default 1.0) and
 * binding (default JSONRPC). Rejects with CardFetchError.
 */
export async function createA2AClient(
  baseUrl: string,
  wire: WireVersion = "1.0",
  binding: Binding = "JSONRPC",
  options: A2AClientOptions = {},
): Promise<Client> {
  const legacyCompat = { enabled: true };
  const signal = options.signal;
  const cardResolver = new DefaultAgentCardResolver({
    legacyCompat,
    fetchImpl: (input: string | URL | Request, init?: RequestInit) =>
      fetchCardResponse(input, signal ? { ...init, signal } : init),
  });
  // Path "" = the card URL as given (the SDK resolves it relative to its first argument).
  const cardUrl = agentCardUrl(baseUrl);
  if (wire === "0.3") {
    const card = await cardResolver.resolve(cardUrl, "");
    const legacy =
      card.supportedInterfaces.find((i) => i.protocolBinding === binding && i.protocolVersion.startsWith("0.3")) ??
      card.supportedInterfaces[0];
    const endpoint = legacy?.url ?? baseUrl;
    const transport =
      binding === "HTTP+JSON" ? new LegacyRestTransport({ endpoint }) : new LegacyJsonRpcTransport({ endpoint });
    return new Client(transport, card);
  }
  const factory = new ClientFactory(
    ClientFactoryOptions.createFrom(ClientFactoryOptions.default, {
      cardResolver,
      transports: [new JsonRpcTransportFactory({ legacyCompat }), new RestTransportFactory({ legacyCompat })],
      preferredTransports: [binding],
    }),
  );
  return factory.createFromUrl(cardUrl, "");
}
