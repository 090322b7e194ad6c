/**
 * Fetching an agent card with a failure that says *why*: connection refused,
 * unknown host, TLS, timeout, an HTTP status, a body that is not JSON or not a
 * card. Used as the SDK card resolver's `fetchImpl`, so every client we make
 * fails with one of these instead of the bare "fetch failed".
 *
 * The card is the participant's bytes like any reply: it is read through the
 * capped reader (reply-limit.ts), whose cap counts the bytes the body decodes
 * to, so a card served gzip (65 KB on the wire, 64 MiB decoded) is refused at
 * the cap (`too_large`) instead of being read whole, and a card nested deeper
 * than the depth limit is refused (`too_deep`) before it is parsed.
 */
import { BenchError, errorMessage } from "../../util/errors.js";
import { DEFAULT_MAX_REPLY_BYTES, ReplyTooDeepError, boundedFetch, findReplyLimitError } from "./reply-limit.js";

/** Why a card could not be had. */
export type CardFetchFailure =
  | "connection_refused"
  | "host_not_found"
  | "connection_reset"
  | "tls"
  | "redirect"
  | "timeout"
  | "http_status"
  | "bad_json"
  | "not_a_card"
  | "too_large"
  | "too_deep"
  | "network";

export class CardFetchError extends BenchError {
  constructor(
    readonly failure: CardFetchFailure,
    readonly cardUrl: string,
    message: string,
    options?: { cause?: unknown },
  ) {
    super("E_CARD_FETCH", message, options);
  }
}

const TLS_CODES =
  /^(CERT_|ERR_TLS_|ERR_SSL_|DEPTH_ZERO_SELF_SIGNED_CERT|SELF_SIGNED_CERT_IN_CHAIN|UNABLE_TO_VERIFY_LEAF_SIGNATURE|UNABLE_TO_GET_ISSUER_CERT|EPROTO$)/;

/** The `code` of the innermost error that has one (undici wraps the socket error in `cause`). */
function causeCode(err: unknown): string | undefined {
  let e: unknown = err;
  let code: string | undefined;
  for (let depth = 0; depth < 5 && e && typeof e === "object"; depth++) {
    const c = (e as { code?: unknown }).code;
    if (typeof c === "string") code = c;
    const errors = (e as { errors?: unknown }).errors; // AggregateError (IPv4 + IPv6 both refused)
    if (Array.isArray(errors) && errors.length > 0) e = errors[0];
    else e = (e as { cause?: unknown }).cause;
  }
  return code;
}

/** Classify a failed fetch of `cardUrl` (thrown by fetch, not an HTTP status). */
export function classifyFetchError(err: unknown, cardUrl: string): CardFetchError {
  const refused = findReplyLimitError(err);
  if (refused) {
    const failure = refused instanceof ReplyTooDeepError ? "too_deep" : "too_large";
    return new CardFetchError(failure, cardUrl, `agent card at ${cardUrl}: ${refused.message}`, { cause: err });
  }
  const name = err instanceof Error ? err.name : "";
  if (name === "TimeoutError" || name === "AbortError") {
    return new CardFetchError("timeout", cardUrl, `no answer from ${cardUrl} in time (${errorMessage(err)})`, {
      cause: err,
    });
  }
  const code = causeCode(err);
  const make = (failure: CardFetchFailure, what: string) =>
    new CardFetchError(failure, cardUrl, `${what} (${cardUrl})`, { cause: err });
  if (code === "ECONNREFUSED") return make("connection_refused", "connection refused: nothing listens there");
  if (code === "ENOTFOUND" || code === "EAI_AGAIN") return make("host_not_found", `host not found (${code})`);
  if (code === "ECONNRESET" || code === "UND_ERR_SOCKET") return make("connection_reset", `connection reset (${code})`);
  if (code === "UND_ERR_CONNECT_TIMEOUT" || code === "ETIMEDOUT") return make("timeout", `connect timed out (${code})`);
  if (code && TLS_CODES.test(code)) return make("tls", `TLS error ${code}`);
  // undici's words for a redirect under `redirect: "error"` (client.ts follows none, the card's included).
  if (err instanceof Error && err.cause instanceof Error && err.cause.message === "unexpected redirect") {
    return make(
      "redirect",
      "the card URL answered a redirect, which is not followed: serve the card at the URL itself",
    );
  }
  return make("network", `request failed: ${code ?? errorMessage(err)}`);
}

function looksLikeCard(v: unknown): boolean {
  if (typeof v !== "object" || v === null || Array.isArray(v)) return false;
  const o = v as Record<string, unknown>;
  return typeof o["name"] === "string" && (typeof o["url"] === "string" || Array.isArray(o["supportedInterfaces"]));
}

/**
 * `fetch` for a card URL: resolves only with a 200 response whose body is a
 * JSON agent card of at most `maxBytes` decoded bytes (re-wrapped, so the
 * caller can read it); else throws CardFetchError.
 */
export async function fetchCardResponse(
  input: string | URL | Request,
  init?: RequestInit,
  maxBytes: number = DEFAULT_MAX_REPLY_BYTES,
): Promise<Response> {
  const cardUrl = typeof input === "string" ? input : input instanceof URL ? input.toString() : input.url;
  let res: Response;
  try {
    res = await boundedFetch(maxBytes)(input, init);
  } catch (err) {
    throw classifyFetchError(err, cardUrl);
  }
  if (!res.ok) {
    await res.body?.cancel().catch(() => {});
    throw new CardFetchError(
      "http_status",
      cardUrl,
      `HTTP ${res.status}${res.statusText ? ` ${res.statusText}` : ""} from ${cardUrl}`,
    );
  }
  let text: string;
  try {
    text = await res.text();
  } catch (err) {
    throw classifyFetchError(err, cardUrl);
  }
  let body: unknown;
  try {
    body = JSON.parse(text);
  } catch (err) {
    throw new CardFetchError("bad_json", cardUrl, `agent card at ${cardUrl} is not JSON: ${errorMessage(err)}`, {
      cause: err,
    });
  }
  if (!looksLikeCard(body)) {
    throw new CardFetchError(
      "not_a_card",
      cardUrl,
      `${cardUrl} answered JSON that is not an agent card (no "name" with "url" or "supportedInterfaces")`,
    );
  }
  return new Response(text, { status: res.status, statusText: res.statusText, headers: res.headers });
}
