/**
 * Optional bearer-token authentication of an agent's JSON-RPC endpoint
 * (the green agent's GREEN_AUTH_TOKEN). The card advertises an HTTP bearer
 * security scheme (A2A v0.3.0 §5.5 securitySchemes/security) and stays public
 * (§5.3: the card itself must be discoverable); a JSON-RPC request without the
 * right `Authorization: Bearer <token>` gets HTTP 401 with `WWW-Authenticate`.
 */
import { timingSafeEqual, createHash } from "node:crypto";
import type { AgentCard } from "@a2a-js/sdk";

/** Name of the scheme in the card's `securitySchemes`. */
export const BEARER_SCHEME_NAME = "bearer";

/** Whether an `Authorization` header value carries exactly `token` (constant time). */
export function bearerMatches(header: string | undefined, token: string): boolean {
  if (!header) return false;
  const m = /^Bearer[ ]+(\S+)\s*$/i.exec(header);
  if (!m?.[1]) return false;
  // Hash both sides so the comparison is constant-time whatever the lengths.
  const a = createHash("sha256").update(m[1]).digest();
  const b = createHash("sha256").update(token).digest();
  return timingSafeEqual(a, b);
}

/** The card with a bearer scheme in `securitySchemes` and required by `securityRequirements`. */
export function withBearerSecurity(card: AgentCard): AgentCard {
  return {
    ...card,
    securitySchemes: {
      ...card.securitySchemes,
      [BEARER_SCHEME_NAME]: {
        scheme: {
          $case: "httpAuthSecurityScheme",
          value: {
            description: "Bearer token set by the operator (GREEN_AUTH_TOKEN)",
            scheme: "Bearer",
            bearerFormat: "",
          },
        },
      },
    },
    securityRequirements: [...card.securityRequirements, { schemes: { [BEARER_SCHEME_NAME]: { list: [] } } }],
  };
}
