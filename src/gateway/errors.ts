/**
 * Errors of the model gateway, each with a stable code and the HTTP status the
 * participant sees. A refusal (bad token, cap reached, streaming asked for) is
 * the participant's: it is told in an OpenAI-shaped error body and its item goes
 * on; only a setting the operator got wrong is ours (E_GATEWAY_SETTING, at start).
 */
import { BenchError } from "../util/errors.js";

export type GatewayErrorCode =
  | "E_GATEWAY_SETTING"
  | "E_GATEWAY_UNAUTHORIZED"
  | "E_GATEWAY_NOT_FOUND"
  | "E_GATEWAY_BAD_REQUEST"
  | "E_GATEWAY_BODY_TOO_LARGE"
  | "E_GATEWAY_STREAM_UNSUPPORTED"
  | "E_GATEWAY_ROUTING_UNSUPPORTED"
  | "E_GATEWAY_BUSY"
  | "E_GATEWAY_UNPRICED_MODEL"
  | "E_GATEWAY_ITEM_CAP"
  | "E_GATEWAY_RUN_CAP"
  | "E_GATEWAY_UPSTREAM";

/** HTTP status of each refusal (402: a cost cap, as a payment-required answer; 429: the item's call already in flight). */
export const GATEWAY_HTTP_STATUS: Record<GatewayErrorCode, number> = {
  E_GATEWAY_SETTING: 500,
  E_GATEWAY_UNAUTHORIZED: 401,
  E_GATEWAY_NOT_FOUND: 404,
  E_GATEWAY_BAD_REQUEST: 400,
  E_GATEWAY_BODY_TOO_LARGE: 413,
  E_GATEWAY_STREAM_UNSUPPORTED: 400,
  E_GATEWAY_ROUTING_UNSUPPORTED: 400,
  E_GATEWAY_BUSY: 429,
  E_GATEWAY_UNPRICED_MODEL: 400,
  E_GATEWAY_ITEM_CAP: 402,
  E_GATEWAY_RUN_CAP: 402,
  E_GATEWAY_UPSTREAM: 502,
};

export class GatewayError extends BenchError {
  declare readonly code: GatewayErrorCode;
  constructor(code: GatewayErrorCode, message: string, options?: { cause?: unknown }) {
    super(code, message, options);
  }

  get httpStatus(): number {
    return GATEWAY_HTTP_STATUS[this.code];
  }

  /** The body the participant gets: OpenAI's error shape, our code as its `code`. */
  body(): Record<string, unknown> {
    return { error: { message: this.message, type: "a2a_bench_gateway", code: this.code } };
  }
}
