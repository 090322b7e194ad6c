/**
 * SDK client factory for either wire version and either binding. `1.0` goes
 * through the SDK's ClientFactory (card resolved with legacyCompat), preferring
 * the requested binding; `0.3` uses the SDK's legacy transport of that binding:
 * header-less JSON-RPC `message/send`, `message/stream`, `tasks/*` (what
 * AgentBeats clients use) or the 0.3 REST paths (`/v1/message:send`, ...).
 *
 * The card is looked up under the URL's path (agent-card-url.ts), so an agent
 * served under a prefix (`http://gateway:8080/purple`) is found with or
 * without the trailing slash, and a failed lookup says why (card-fetch.ts).
 *
 * Requests go to the URL we were given, exactly — never to the card's `url`,
 * `additionalInterfaces` or `supportedInterfaces[].url`: the card is read for
 * what the agent speaks (bindings, versions, capabilities) and its URLs are
 * pinned to ours before a transport is chosen ({@link PinnedCardResolver}).
 * Otherwise a card could send every task to any service our host reaches
 * (SSRF), and an agent behind the AgentBeats gateway, whose card names its
 * in-cluster address, would be unreachable. Every response body is capped
 * (reply-limit.ts: decoded bytes and JSON depth) and no redirect is followed,
 * the card's included. Requests after the card go through node's own HTTP
 * client (http-fetch.ts), about half the CPU of the global `fetch` a request.
 *
 * gRPC (a participant whose card offers it, or offers only it) runs on a port of
 * its own, so its interface keeps the card's port but is pinned to our URL's
 * host: a card can move us to another port of the host we were given, never to
 * another host. Its replies are capped by grpc-js's own receive limit (4 MiB;
 * the SDK's gRPC transport takes no channel options).
 * grpc-js is loaded only when a gRPC interface is chosen.
 */
import type { AgentCard } from "@a2a-js/sdk";
import {
  Client,
  ClientFactory,
  ClientFactoryOptions,
  DefaultAgentCardResolver,
  JsonRpcTransportFactory,
  RestTransportFactory,
  type AgentCardResolver,
  type Transport,
  type TransportFactory,
} from "@a2a-js/sdk/client";
import { LegacyJsonRpcTransport, LegacyRestTransport } from "@a2a-js/sdk/compat/v0_3/client";
import { agentCardUrl, agentEndpointUrl } from "./agent-card-url.js";
import { fetchCardResponse } from "./card-fetch.js";
import { loadGrpc } from "../shared/grpc-module.js";
import { DEFAULT_MAX_REPLY_BYTES, boundedFetch } from "./reply-limit.js";
import { httpFetch } from "./http-fetch.js";

export type WireVersion = "1.0" | "0.3";
/** The A2A protocol binding the client speaks (the card's `protocolBinding` names). */
export type Binding = "JSONRPC" | "HTTP+JSON" | "GRPC";

export interface A2AClientOptions {
  /** Bounds the card fetch (not the later calls). */
  signal?: AbortSignal;
  /** Largest response body (the card's too) accepted from the agent, decoded bytes; default {@link DEFAULT_MAX_REPLY_BYTES}. */
  maxReplyBytes?: number;
}

/**
 * `card` with every interface at `endpoint` (the card's own URLs never route a request); a GRPC
 * interface keeps its port, on `endpoint`'s host.
 */
export function pinCardToEndpoint(card: AgentCard, endpoint: string): AgentCard {
  return {
    ...card,
    supportedInterfaces: card.supportedInterfaces.map((i) => ({
      ...i,
      url: i.protocolBinding.toUpperCase() === "GRPC" ? pinGrpcTarget(i.url, endpoint) : endpoint,
    })),
  };
}

/** The gRPC target `host:port` of a card's GRPC interface URL, on `endpoint`'s host (port 443 when it names none). */
export function pinGrpcTarget(cardTarget: string, endpoint: string): string {
  const host = new URL(endpoint).hostname;
  const port = /:(\d{1,5})(?:\/.*)?$/.exec(cardTarget.replace(/^[a-z][a-z0-9+.-]*:\/\//i, ""))?.[1] ?? "443";
  return `${host}:${port}`;
}

/** The SDK's gRPC transport factory, its module loaded on first use (a JSON client never loads grpc-js). */
class LazyGrpcTransportFactory implements TransportFactory {
  get protocolName(): string {
    return "GRPC";
  }

  async create(url: string, agentCard: AgentCard): Promise<Transport> {
    const grpc = await loadGrpc();
    const { GrpcTransportFactory } = await import("@a2a-js/sdk/client/grpc");
    const factory = new GrpcTransportFactory({
      legacyCompat: { enabled: true },
      grpcChannelCredentials: grpc.credentials.createInsecure(),
    });
    return factory.create(url, agentCard);
  }
}

/** Resolves the card as the SDK's resolver does, then pins its interfaces to our endpoint. */
class PinnedCardResolver implements AgentCardResolver {
  constructor(
    private readonly inner: DefaultAgentCardResolver,
    private readonly endpoint: string,
  ) {}

  async resolve(baseUrl: string, path?: string): Promise<AgentCard> {
    return pinCardToEndpoint(await this.inner.resolve(baseUrl, path), this.endpoint);
  }

  normalizeAgentCard(card: unknown): AgentCard {
    return pinCardToEndpoint(this.inner.normalizeAgentCard(card), this.endpoint);
  }
}

/**
 * Create a client for the agent at `baseUrl` speaking the given wire version (default 1.0) and
 * binding (default JSONRPC); its requests go to `baseUrl` exactly (see the module note). Rejects
 * with CardFetchError.
 */
export async function createA2AClient(
  baseUrl: string,
  wire: WireVersion = "1.0",
  binding: Binding = "JSONRPC",
  options: A2AClientOptions = {},
): Promise<Client> {
  const legacyCompat = { enabled: true };
  const signal = options.signal;
  const endpoint = agentEndpointUrl(baseUrl);
  const maxBytes = options.maxReplyBytes ?? DEFAULT_MAX_REPLY_BYTES;
  // The agent's requests (one per item on the hot path) go through the lean fetch (http-fetch.ts).
  const fetchImpl = boundedFetch(maxBytes, httpFetch);
  const cardResolver = new PinnedCardResolver(
    new DefaultAgentCardResolver({
      legacyCompat,
      fetchImpl: (input: string | URL | Request, init?: RequestInit) =>
        fetchCardResponse(input, { ...init, redirect: "error", ...(signal ? { signal } : {}) }, maxBytes),
    }),
    endpoint,
  );
  // Path "" = the card URL as given (the SDK resolves it relative to its first argument).
  const cardUrl = agentCardUrl(baseUrl);
  if (wire === "0.3") {
    const card = await cardResolver.resolve(cardUrl, "");
    const transport =
      binding === "HTTP+JSON"
        ? new LegacyRestTransport({ endpoint, fetchImpl })
        : new LegacyJsonRpcTransport({ endpoint, fetchImpl });
    return new Client(transport, card);
  }
  const factory = new ClientFactory(
    ClientFactoryOptions.createFrom(ClientFactoryOptions.default, {
      cardResolver,
      transports: [
        new JsonRpcTransportFactory({ legacyCompat, fetchImpl }),
        new RestTransportFactory({ legacyCompat, fetchImpl }),
        new LazyGrpcTransportFactory(),
      ],
      preferredTransports: [binding],
    }),
  );
  return factory.createFromUrl(cardUrl, "");
}
