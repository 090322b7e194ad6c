/**
 * Who can reach the green agent. Anyone who reaches its JSON-RPC endpoint can
 * make it run code and read the paths its allowed roots cover, so listening
 * beyond loopback without GREEN_AUTH_TOKEN is refused unless the operator says
 * so (GREEN_ALLOW_UNAUTHENTICATED=1 / `--allow-unauthenticated`, e.g. in a
 * container on a private network), and then it is said loudly.
 */
import { isIP } from "node:net";

/** Whether `host` (a bind address) accepts only local connections. */
export function isLoopbackHost(host: string): boolean {
  const h = host.replace(/^\[|\]$/g, "").toLowerCase();
  if (h === "localhost" || h === "::1") return true;
  if (isIP(h) === 4) return h.startsWith("127.");
  if (h.startsWith("::ffff:")) return h.slice(7).startsWith("127.");
  return false;
}

export type ExposureVerdict = { kind: "ok" } | { kind: "warn"; message: string } | { kind: "refuse"; message: string };

/** The start-up verdict for binding `host` with or without a token. */
export function exposureVerdict(host: string, hasToken: boolean, allowUnauthenticated: boolean): ExposureVerdict {
  if (hasToken || isLoopbackHost(host)) return { kind: "ok" };
  const what = `the green agent would listen on ${host} (not loopback) with no GREEN_AUTH_TOKEN: anyone who reaches it can start assessments that run code on this machine`;
  if (allowUnauthenticated)
    return {
      kind: "warn",
      message: `WARNING: ${what} (allowed by GREEN_ALLOW_UNAUTHENTICATED / --allow-unauthenticated)`,
    };
  return {
    kind: "refuse",
    message: `refusing to start: ${what}. Set GREEN_AUTH_TOKEN=<secret> (clients send Authorization: Bearer <secret>), bind --host 127.0.0.1, or, on a private network, set GREEN_ALLOW_UNAUTHENTICATED=1 (--allow-unauthenticated)`,
  };
}
