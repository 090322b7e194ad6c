/**
 * The model gateway's protocol: one OpenAI-compatible call in, the same call
 * forwarded to the operator's upstream with the operator's key, the upstream's
 * answer out, its `usage` counted and priced for the item whose token the call
 * carried (ledger.ts). No HTTP server here (server.ts adapts node:http to it).
 *
 * Forwarded: `POST <base>/chat/completions` and `POST <base>/completions`, where
 * `<base>` is `/<assessment path>/v1`. Refused with an OpenAI-shaped error: a
 * missing or revoked token (401), a model absent from the price table, any
 * `stream` but `false` or a `stream_options` (400; usage is counted from whole
 * answers only), a routing field (400; the answer must come from the model
 * asked for), a call while the item's previous one is in flight (429), a cost
 * cap reached counting the worst cases of calls in flight (402). The answer is
 * priced as the model it names; one without usage at the call's worst case.
 * The participant's own `Authorization` never reaches the upstream.
 */
import type { Logger } from "../util/logger.js";
import { errorMessage } from "../util/errors.js";
import { GatewayError } from "./errors.js";
import type { CallTokens, Ledger } from "./ledger.js";
import { answerPrice, costUsd, highestPrice, type PriceTable } from "./prices.js";

/** The forwarded endpoints, below `<base>`. */
export const FORWARDED_PATHS = ["/chat/completions", "/completions"] as const;

/**
 * Body fields with which a router upstream answers from another model than `model` (a fallback list, a route,
 * a provider choice): refused, so the call is answered by the model it names.
 */
export const ROUTING_FIELDS = [
  "models",
  "route",
  "fallbacks",
  "fallback_models",
  "context_window_fallback_dict",
  "provider",
  "preset",
] as const;

/** Output tokens a call is assumed to be able to produce per choice when it sets no `max_tokens`/`max_completion_tokens`. */
export const DEFAULT_OUTPUT_CEILING_TOKENS = 32_768;

export interface GatewayRequest {
  method: string;
  /** Path and query as received. */
  path: string;
  /** The `Authorization` header as received. */
  authorization: string | undefined;
  /** The body's bytes as received. */
  body: Buffer;
}

export interface GatewayResponse {
  status: number;
  /** Body bytes (JSON). */
  body: Buffer;
  contentType: string;
}

export interface GatewayOptions {
  /** The upstream's base URL, ending before `/chat/completions` (e.g. `https://api.openai.com/v1`). */
  upstream: string;
  /** The operator's key for the upstream (sent as `Authorization: Bearer`); none when undefined. */
  upstreamKey: string | undefined;
  prices: PriceTable;
  ledger: Ledger;
  /** The path prefix this assessment's gateway answers on (`/<assessment id>/v1`). */
  basePath: string;
  logger: Logger;
  /** Per-call time limit towards the upstream, ms. */
  upstreamTimeoutMs: number;
  fetchImpl?: typeof fetch;
}

function json(status: number, value: unknown): GatewayResponse {
  return { status, body: Buffer.from(JSON.stringify(value)), contentType: "application/json" };
}

function bearer(header: string | undefined): string | undefined {
  const m = /^Bearer\s+(\S+)\s*$/i.exec(header ?? "");
  return m?.[1];
}

/** The non-negative integer counts of an answer's `usage`, or undefined when it has none or a malformed one. */
export function tokensOf(answer: unknown): CallTokens | undefined {
  const usage = (answer as { usage?: unknown } | null)?.usage;
  if (typeof usage !== "object" || usage === null) return undefined;
  const u = usage as Record<string, unknown>;
  const count = (v: unknown): number | undefined =>
    typeof v === "number" && Number.isInteger(v) && v >= 0 ? v : undefined;
  const prompt = count(u["prompt_tokens"]);
  const completion = count(u["completion_tokens"]) ?? 0;
  if (prompt === undefined) return undefined;
  return {
    prompt_tokens: prompt,
    completion_tokens: completion,
    total_tokens: count(u["total_tokens"]) ?? prompt + completion,
  };
}

export class ModelGateway {
  private readonly fetchImpl: typeof fetch;

  constructor(private readonly o: GatewayOptions) {
    this.fetchImpl = o.fetchImpl ?? fetch;
  }

  /** Answer one call; never throws (every failure is an error answer). */
  async handle(req: GatewayRequest): Promise<GatewayResponse> {
    try {
      return await this.forward(req);
    } catch (err) {
      const e =
        err instanceof GatewayError
          ? err
          : new GatewayError("E_GATEWAY_UPSTREAM", `gateway failure: ${errorMessage(err)}`);
      if (e.code === "E_GATEWAY_UPSTREAM") this.o.logger.warn({ code: e.code }, e.message);
      return json(e.httpStatus, e.body());
    }
  }

  private async forward(req: GatewayRequest): Promise<GatewayResponse> {
    const path = req.path.split("?")[0] ?? "";
    const rest = path.startsWith(this.o.basePath + "/") ? path.slice(this.o.basePath.length) : undefined;
    if (rest === undefined || !(FORWARDED_PATHS as readonly string[]).includes(rest))
      throw new GatewayError("E_GATEWAY_NOT_FOUND", `no such endpoint; use POST ${this.o.basePath}/chat/completions`);
    // The token before anything else: a caller without one learns nothing more.
    const { token } = this.o.ledger.authorize(bearer(req.authorization));
    if (req.method !== "POST") throw new GatewayError("E_GATEWAY_NOT_FOUND", `${req.method} is not served; use POST`);
    let body: Record<string, unknown>;
    try {
      const parsed: unknown = JSON.parse(req.body.toString("utf8"));
      if (typeof parsed !== "object" || parsed === null || Array.isArray(parsed)) throw new Error("not an object");
      body = parsed as Record<string, unknown>;
    } catch (err) {
      this.o.ledger.refuse(token);
      throw new GatewayError("E_GATEWAY_BAD_REQUEST", `the body must be a JSON object: ${errorMessage(err)}`);
    }
    const outputCeiling = this.check(body, token);
    // The worst case: every byte of the body an input token, the output ceiling in output tokens, at the table's
    // highest prices (the answer may name another model). Reserved against the caps while the call is out.
    const dearest = highestPrice(this.o.prices);
    const inputEstimate = req.body.length;
    const admission = this.o.ledger.admit(token, costUsd(dearest, inputEstimate, outputCeiling));
    const headers: Record<string, string> = { "content-type": "application/json", accept: "application/json" };
    if (this.o.upstreamKey) headers["authorization"] = `Bearer ${this.o.upstreamKey}`;
    let res: Response;
    try {
      res = await this.fetchImpl(this.o.upstream.replace(/\/+$/, "") + rest, {
        method: "POST",
        headers,
        body: JSON.stringify(body),
        redirect: "error",
        signal: AbortSignal.timeout(this.o.upstreamTimeoutMs),
      });
    } catch (err) {
      // Not charged: nothing came back. The participant sees a 502 (a failed call, like any network error).
      this.o.ledger.release(admission);
      throw new GatewayError("E_GATEWAY_UPSTREAM", `the upstream could not be reached: ${errorMessage(err)}`, {
        cause: err,
      });
    }
    let bytes: Buffer;
    try {
      bytes = Buffer.from(await res.arrayBuffer());
    } catch (err) {
      // The answer broke off (or timed out) midway: a successful one's tokens were likely spent and cannot be
      // counted, so it is charged at its worst case; an error answer is not charged. Either way the item is free.
      if (res.ok) this.o.ledger.charge(admission, undefined, costUsd(dearest, inputEstimate, outputCeiling));
      else this.o.ledger.release(admission);
      throw new GatewayError("E_GATEWAY_UPSTREAM", `the upstream's answer broke off: ${errorMessage(err)}`, {
        cause: err,
      });
    }
    let answer: unknown;
    try {
      answer = JSON.parse(bytes.toString("utf8"));
    } catch {
      answer = undefined;
    }
    // Priced as the model the answer names (the table's highest price when it names none or an unpriced one).
    // An answer with usage is charged whatever its status (the upstream billed it); a successful one without
    // usable usage (a stream, a body that is not JSON) at the call's worst case at that price, as an estimate.
    const tokens = tokensOf(answer);
    const { price: answeredPrice } = answerPrice(this.o.prices, (answer as { model?: unknown } | null)?.model);
    if (tokens !== undefined)
      this.o.ledger.charge(admission, tokens, costUsd(answeredPrice, tokens.prompt_tokens, tokens.completion_tokens));
    else if (res.ok) this.o.ledger.charge(admission, undefined, costUsd(answeredPrice, inputEstimate, outputCeiling));
    else this.o.ledger.release(admission);
    return { status: res.status, body: bytes, contentType: res.headers.get("content-type") ?? "application/json" };
  }

  /** Refuse a call the gateway cannot count (streaming, routing, an unpriced model, a bad limit); its output ceiling. */
  private check(body: Record<string, unknown>, token: string): number {
    const refuse = (
      code: "E_GATEWAY_STREAM_UNSUPPORTED" | "E_GATEWAY_ROUTING_UNSUPPORTED" | "E_GATEWAY_BAD_REQUEST",
      message: string,
    ): never => {
      this.o.ledger.refuse(token);
      throw new GatewayError(code, message);
    };
    // Any `stream` but the literal false: a lax upstream reads "true", 1, "yes" as true and streams without usage.
    if (Object.hasOwn(body, "stream") && body["stream"] !== false)
      refuse(
        "E_GATEWAY_STREAM_UNSUPPORTED",
        `stream: ${JSON.stringify(body["stream"])} is not served by this gateway (usage is counted from whole answers); send stream: false or leave it out`,
      );
    if (Object.hasOwn(body, "stream_options") && body["stream_options"] !== null)
      refuse(
        "E_GATEWAY_STREAM_UNSUPPORTED",
        "stream_options is not served by this gateway (no streaming); leave it out",
      );
    const routing = ROUTING_FIELDS.filter((f) => Object.hasOwn(body, f));
    if (routing.length > 0)
      refuse(
        "E_GATEWAY_ROUTING_UNSUPPORTED",
        `routing fields are not served by this gateway (the call is answered by the model it names): ${routing.join(", ")}`,
      );
    const outputCeiling = this.outputCeiling(body, refuse);
    const model = body["model"];
    if (typeof model !== "string" || !Object.hasOwn(this.o.prices, model)) {
      this.o.ledger.refuse(token);
      throw new GatewayError(
        "E_GATEWAY_UNPRICED_MODEL",
        `model ${JSON.stringify(model)} is not offered; offered: ${Object.keys(this.o.prices).join(", ")}`,
      );
    }
    return outputCeiling;
  }

  /**
   * The most output tokens the call can ask for: `max_completion_tokens` or `max_tokens` (the larger when both),
   * else {@link DEFAULT_OUTPUT_CEILING_TOKENS}, times `n` choices. Either set to anything but a positive integer
   * is refused (a lax upstream could read a string its own way).
   */
  private outputCeiling(
    body: Record<string, unknown>,
    refuse: (code: "E_GATEWAY_BAD_REQUEST", m: string) => never,
  ): number {
    const positive = (field: string): number | undefined => {
      if (!Object.hasOwn(body, field) || body[field] === null) return undefined;
      const v = body[field];
      if (typeof v === "number" && Number.isSafeInteger(v) && v > 0) return v;
      return refuse("E_GATEWAY_BAD_REQUEST", `${field} must be a positive integer, got ${JSON.stringify(v)}`);
    };
    const limits = [positive("max_tokens"), positive("max_completion_tokens")].filter((v) => v !== undefined);
    const perChoice = limits.length > 0 ? Math.max(...limits) : DEFAULT_OUTPUT_CEILING_TOKENS;
    return perChoice * (positive("n") ?? 1);
  }
}
