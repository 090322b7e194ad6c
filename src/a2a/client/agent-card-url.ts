/**
 * Where a participant's agent card is, given the URL we were handed.
 *
 * The SDK resolves the card with `new URL(".well-known/agent-card.json", base)`
 * (client/card-resolver.ts), i.e. relative to the URL's *directory*: for
 * `http://gateway:8080/purple` that is the host root, not `/purple/`. The
 * AgentBeats gateway hands out exactly such path URLs and serves the agent
 * under the prefix, so we treat the URL's path as a directory (add the
 * trailing slash) before resolving. A URL that already names the card file
 * is used as is.
 */
import { AGENT_CARD_PATH } from "@a2a-js/sdk";

/** The agent card URL for an agent URL with or without a path and trailing slash. */
export function agentCardUrl(agentUrl: string): string {
  const url = new URL(agentUrl);
  url.hash = "";
  if (url.pathname.endsWith(`/${AGENT_CARD_PATH}`)) return url.toString();
  if (!url.pathname.endsWith("/")) url.pathname += "/";
  return new URL(AGENT_CARD_PATH, url).toString();
}

/**
 * Where requests to the agent go: the URL we were handed, exactly (path prefix and trailing
 * slash kept), never the card's `url` or interfaces (client.ts). A URL that names the card
 * file itself stands for the agent at the card's directory's parent, the agent's root.
 */
export function agentEndpointUrl(agentUrl: string): string {
  const url = new URL(agentUrl);
  url.hash = "";
  if (url.pathname.endsWith(`/${AGENT_CARD_PATH}`)) {
    url.pathname = url.pathname.slice(0, -AGENT_CARD_PATH.length);
    return url.toString();
  }
  return agentUrl;
}
