import { describe, expect, test } from "vitest";
import { agentCardUrl } from "../../../src/a2a/client/agent-card-url.js";
import { classifyFetchError } from "../../../src/a2a/client/card-fetch.js";

describe("agentCardUrl: the card lives under the URL's path", () => {
  test.each([
    ["http://gateway:8080/purple", "http://gateway:8080/purple/.well-known/agent-card.json"],
    ["http://gateway:8080/purple/", "http://gateway:8080/purple/.well-known/agent-card.json"],
    ["http://gateway:8080/a/b", "http://gateway:8080/a/b/.well-known/agent-card.json"],
    ["http://127.0.0.1:9009", "http://127.0.0.1:9009/.well-known/agent-card.json"],
    ["http://127.0.0.1:9009/", "http://127.0.0.1:9009/.well-known/agent-card.json"],
    ["http://h/purple/.well-known/agent-card.json", "http://h/purple/.well-known/agent-card.json"],
  ])("%s → %s", (url, card) => {
    expect(agentCardUrl(url)).toBe(card);
  });
});

describe("classifyFetchError names the cause", () => {
  const wrap = (code: string) =>
    Object.assign(new TypeError("fetch failed"), { cause: Object.assign(new Error(code), { code }) });
  test.each([
    ["ECONNREFUSED", "connection_refused", /connection refused/],
    ["ENOTFOUND", "host_not_found", /host not found/],
    ["DEPTH_ZERO_SELF_SIGNED_CERT", "tls", /TLS error/],
    ["ERR_TLS_CERT_ALTNAME_INVALID", "tls", /TLS error/],
    ["ECONNRESET", "connection_reset", /reset/],
  ])("%s", (code, failure, message) => {
    const e = classifyFetchError(wrap(code), "http://x/.well-known/agent-card.json");
    expect(e.failure).toBe(failure);
    expect(e.message).toMatch(message);
    expect(e.message).toContain("http://x/.well-known/agent-card.json");
  });

  test("a timeout", () => {
    const e = classifyFetchError(
      new DOMException("The operation was aborted due to timeout", "TimeoutError"),
      "http://x/c",
    );
    expect(e.failure).toBe("timeout");
  });
});
