/**
 * What one assessment's calls through the gateway cost, per item and in all,
 * and who may call. Each item gets its own random bearer token when it starts
 * (`open`), revoked when it ends (`close`): a call is charged to the item whose
 * token it carries, and a token is worth nothing once its item is over, so a
 * participant can neither charge a finished item nor one of another assessment
 * (whose tokens this ledger never issued). Pure bookkeeping: no HTTP here.
 */
import { randomBytes } from "node:crypto";
import { GatewayError } from "./errors.js";

/** Measured usage of an item or a run (`measured_usage` of schemas/results.schema.json). */
export interface MeasuredUsage {
  /** Always `measured`: counted by our gateway from the upstream's own `usage`, not the participant's word. */
  source: "measured";
  prompt_tokens: number;
  completion_tokens: number;
  total_tokens: number;
  /** Calls forwarded to the upstream. */
  requests: number;
  /** Of `requests`, those whose answer carried no `usage` (their tokens are not counted). */
  requests_without_usage: number;
  /** Calls refused (a cost cap, an unpriced model, streaming); never forwarded, never charged. */
  refused_requests: number;
  /** Cost of the counted tokens at the operator's prices, USD. */
  cost_usd: number;
  /** Set when a call was refused because the item's (`item`) or the run's (`run`) cost cap was reached. */
  cap_hit?: "item" | "run";
}

export interface CostCaps {
  /** Calls of an item are refused once it has cost this much, USD. */
  perItemUsd?: number;
  /** Calls of every item are refused once the run has cost this much, USD. */
  perRunUsd?: number;
}

/** One item's open account: its token and what it has spent. */
export interface ItemAccount {
  readonly itemId: string;
  readonly token: string;
  readonly usage: MeasuredUsage;
}

export function emptyMeasuredUsage(): MeasuredUsage {
  return {
    source: "measured",
    prompt_tokens: 0,
    completion_tokens: 0,
    total_tokens: 0,
    requests: 0,
    requests_without_usage: 0,
    refused_requests: 0,
    cost_usd: 0,
  };
}

/** Field-wise sum of `b` into `a` (a cap hit is kept; an item cap hit gives way to a run cap hit). */
export function addMeasured(a: MeasuredUsage, b: MeasuredUsage): MeasuredUsage {
  const sum: MeasuredUsage = {
    source: "measured",
    prompt_tokens: a.prompt_tokens + b.prompt_tokens,
    completion_tokens: a.completion_tokens + b.completion_tokens,
    total_tokens: a.total_tokens + b.total_tokens,
    requests: a.requests + b.requests,
    requests_without_usage: a.requests_without_usage + b.requests_without_usage,
    refused_requests: a.refused_requests + b.refused_requests,
    cost_usd: roundUsd(a.cost_usd + b.cost_usd),
  };
  const hit = a.cap_hit === "run" || b.cap_hit === "run" ? "run" : (a.cap_hit ?? b.cap_hit);
  if (hit !== undefined) sum.cap_hit = hit;
  return sum;
}

/** Dollars to 1e-9 (a billionth of a dollar): sums of float prices stay readable. */
export function roundUsd(v: number): number {
  return Math.round(v * 1e9) / 1e9;
}

/** Token counts the upstream reported for one call. */
export interface CallTokens {
  prompt_tokens: number;
  completion_tokens: number;
  total_tokens: number;
}

export class Ledger {
  private readonly open_ = new Map<string, { itemId: string; usage: MeasuredUsage }>();
  private run = emptyMeasuredUsage();

  constructor(private readonly caps: CostCaps = {}) {}

  /** Open an item's account: a fresh token only this item's calls carry. */
  open(itemId: string): ItemAccount {
    const token = `a2ab-${randomBytes(32).toString("base64url")}`;
    const account = { itemId, usage: emptyMeasuredUsage() };
    this.open_.set(token, account);
    return { itemId, token, usage: account.usage };
  }

  /** Close an item's account: its token is refused from now on; what it spent. */
  close(token: string): MeasuredUsage {
    const account = this.open_.get(token);
    this.open_.delete(token);
    return account ? { ...account.usage } : emptyMeasuredUsage();
  }

  /** Close every account (the assessment ended). */
  closeAll(): void {
    this.open_.clear();
  }

  /** The item a token belongs to; refused when the token is not one of an open item. */
  authorize(token: string | undefined): { itemId: string; token: string } {
    const account = token === undefined ? undefined : this.open_.get(token);
    if (token === undefined || account === undefined)
      throw new GatewayError(
        "E_GATEWAY_UNAUTHORIZED",
        "no valid gateway token: use the bearer token of the item you are answering, while you answer it",
      );
    return { itemId: account.itemId, token };
  }

  /** Refuse the call if the item's or the run's cap is reached (counted as a refused call of the item). */
  admit(token: string): void {
    const account = this.open_.get(token);
    if (!account) throw new GatewayError("E_GATEWAY_UNAUTHORIZED", "the item's gateway token was revoked");
    const { perItemUsd, perRunUsd } = this.caps;
    if (perRunUsd !== undefined && this.run.cost_usd >= perRunUsd) {
      this.refuse(token, "run");
      throw new GatewayError(
        "E_GATEWAY_RUN_CAP",
        `the run's cost cap of ${perRunUsd} USD is reached (spent ${this.run.cost_usd} USD); no further model calls in this assessment`,
      );
    }
    if (perItemUsd !== undefined && account.usage.cost_usd >= perItemUsd) {
      this.refuse(token, "item");
      throw new GatewayError(
        "E_GATEWAY_ITEM_CAP",
        `this item's cost cap of ${perItemUsd} USD is reached (spent ${account.usage.cost_usd} USD); no further model calls for it`,
      );
    }
  }

  /** Count a call refused before forwarding (and, for a cap, which cap). */
  refuse(token: string, cap?: "item" | "run"): void {
    const account = this.open_.get(token);
    if (!account) return;
    account.usage.refused_requests++;
    this.run.refused_requests++;
    if (cap !== undefined) {
      if (account.usage.cap_hit !== "run") account.usage.cap_hit = cap;
      if (this.run.cap_hit !== "run") this.run.cap_hit = cap;
    }
  }

  /**
   * Charge a forwarded call: its tokens (undefined when the upstream gave no `usage`) and their cost. Charged
   * to the run also when the item closed meanwhile (the tokens were spent).
   */
  charge(token: string, tokens: CallTokens | undefined, cost: number): void {
    const account = this.open_.get(token);
    for (const u of account ? [account.usage, this.run] : [this.run]) {
      u.requests++;
      if (tokens === undefined) {
        u.requests_without_usage++;
        continue;
      }
      u.prompt_tokens += tokens.prompt_tokens;
      u.completion_tokens += tokens.completion_tokens;
      u.total_tokens += tokens.total_tokens;
      u.cost_usd = roundUsd(u.cost_usd + cost);
    }
  }

  /** What the whole run has spent so far. */
  runTotals(): MeasuredUsage {
    return { ...this.run };
  }
}
