/**
 * Poll an agent card until it is served, bounded. The AgentBeats tutorial
 * runner polls each card every 1 s for up to 30 s; smi_bench's smoke every
 * 0.5 s for 10 s. We poll faster (agents start in well under a second) and
 * keep the 30 s bound, and stop early when the caller says the process died.
 * A card is an agent's bytes like any reply: it is read through the capped
 * reader (reply-limit.ts: decoded bytes and JSON depth bounded, no redirect),
 * so a compression bomb served as a card costs about the cap.
 */
import { BenchError } from "../util/errors.js";
import { DEFAULT_MAX_REPLY_BYTES, boundedFetch } from "../a2a/client/reply-limit.js";

/** Default bound on waiting for a card, ms (AgentBeats tutorial runner: 30 s). */
export const CARD_WAIT_MS = 30_000;
/** Poll interval, ms. */
export const CARD_POLL_MS = 200;
/** Per-request timeout of one card fetch, ms. */
const FETCH_TIMEOUT_MS = 2_000;

/** Agent card JSON, as far as we look into it. */
export interface CardSummary {
  name?: string;
  url?: string;
  version?: string;
  [key: string]: unknown;
}

/** Fetch a card once; undefined when not served (connection refused, non-200, not JSON, over the reply cap). */
export async function fetchCard(cardUrl: string, timeoutMs = FETCH_TIMEOUT_MS): Promise<CardSummary | undefined> {
  try {
    const res = await boundedFetch(DEFAULT_MAX_REPLY_BYTES)(cardUrl, { signal: AbortSignal.timeout(timeoutMs) });
    if (!res.ok) {
      await res.body?.cancel();
      return undefined;
    }
    const body = await res.json();
    return body !== null && typeof body === "object" ? (body as CardSummary) : undefined;
  } catch {
    return undefined;
  }
}

export interface WaitCardOptions {
  /** Bound, ms; default {@link CARD_WAIT_MS}. */
  timeoutMs?: number;
  /** Poll interval, ms; default {@link CARD_POLL_MS}. */
  pollMs?: number;
  /** Returns a reason string when waiting is pointless (e.g. the process exited). */
  abortReason?: () => string | undefined;
}

/** Wait until `cardUrl` serves a card; throws BenchError E_CARD_TIMEOUT / E_AGENT_EXITED. */
export async function waitForCard(cardUrl: string, options: WaitCardOptions = {}): Promise<CardSummary> {
  const timeoutMs = options.timeoutMs ?? CARD_WAIT_MS;
  const pollMs = options.pollMs ?? CARD_POLL_MS;
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const card = await fetchCard(cardUrl);
    if (card) return card;
    const reason = options.abortReason?.();
    if (reason !== undefined) throw new BenchError("E_AGENT_EXITED", `${cardUrl}: ${reason}`);
    if (Date.now() >= deadline)
      throw new BenchError(
        "E_CARD_TIMEOUT",
        `${cardUrl}: no agent card after ${Number((timeoutMs / 1000).toFixed(1))} s`,
      );
    await new Promise((r) => setTimeout(r, pollMs));
  }
}
