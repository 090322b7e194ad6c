/**
 * SDK client factory for either wire version. `1.0` goes through the SDK's
 * ClientFactory (card resolved with legacyCompat); `0.3` uses the SDK's
 * legacy JSON-RPC transport against the card's URL, i.e. the header-less
 * `message/send`, `message/stream`, `tasks/*` methods AgentBeats clients use.
 */
import {
  Client,
  ClientFactory,
  ClientFactoryOptions,
  DefaultAgentCardResolver,
  JsonRpcTransportFactory,
} from "@a2a-js/sdk/client";
import { LegacyJsonRpcTransport } from "@a2a-js/sdk/compat/v0_3/client";

export type WireVersion = "1.0" | "0.3";

/** Create a client for the agent at `baseUrl` speaking the given wire version (default 1.0). */
export async function createA2AClient(baseUrl: string, wire: WireVersion = "1.0"): Promise<Client> {
  const legacyCompat = { enabled: true };
  const cardResolver = new DefaultAgentCardResolver({ legacyCompat });
  if (wire === "0.3") {
    const card = await cardResolver.resolve(baseUrl);
    const legacy = card.supportedInterfaces.find((i) => i.protocolVersion.startsWith("0.3")) ?? card.supportedInterfaces[0];
    return new Client(new LegacyJsonRpcTransport({ endpoint: legacy?.url ?? baseUrl }), card);
  }
  const factory = new ClientFactory(
    ClientFactoryOptions.createFrom(ClientFactoryOptions.default, {
      cardResolver,
      transports: [new JsonRpcTransportFactory({ legacyCompat })],
    }),
  );
  return factory.createFromUrl(baseUrl);
}
