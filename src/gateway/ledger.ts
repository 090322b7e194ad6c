/**
 * What one assessment's calls through the gateway cost, per item and in all,
 * and who may call. Each item gets its own random bearer token when it starts
 * (`open`), revoked when it ends (`close`): a call is charged to the item whose
 * token it carries, and a token is worth nothing once its item is over, so a
 * participant can neither charge a finished item nor one of another assessment
 * (whose tokens this ledger never issued). An item has at most one call in
 * flight; each admitted call reserves its worst-case cost against the item's
 * and the run's caps until its answer is charged, so calls in flight at once
 * cannot each pass a cap that only one of them should. Pure bookkeeping: no
 * HTTP here.
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
  /**
   * Of `requests`, those whose answer carried no usable `usage`: their tokens are not counted, each is charged
   * at the call's worst case instead (in `cost_usd` and `estimated_cost_usd`).
   */
  requests_without_usage: number;
  /** Calls refused (a cost cap, an unpriced model, streaming, a call already in flight); never forwarded, never charged. */
  refused_requests: number;
  /** Cost of the counted tokens at the operator's prices, plus the estimated cost of answers without usage, USD. */
  cost_usd: number;
  /** Of `cost_usd`, the part estimated (answers without usage charged at their worst case); absent when none. */
  estimated_cost_usd?: number;
  /** Set when a call was refused because the item's (`item`) or the run's (`run`) cost cap was reached. */
  cap_hit?: "item" | "run";
}

export interface CostCaps {
  /** Calls of an item are refused once it has cost this much, USD. */
  perItemUsd?: number;
  /** Calls of every item are refused once the run's cost plus the worst cases of its calls in flight reach this much, USD. */
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
  const estimated = roundUsd((a.estimated_cost_usd ?? 0) + (b.estimated_cost_usd ?? 0));
  if (estimated > 0) sum.estimated_cost_usd = estimated;
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

/** What an admitted call holds until it is charged or released: its account and its reserved worst case. */
export interface Admission {
  readonly token: string;
  readonly reservedUsd: number;
}

interface Account {
  itemId: string;
  usage: MeasuredUsage;
  /** The worst case reserved by the item's call in flight; undefined when none is. */
  inFlightUsd: number | undefined;
}

export class Ledger {
  private readonly open_ = new Map<string, Account>();
  private run = emptyMeasuredUsage();
  /** Worst cases reserved by every call in flight, of open and closed items alike. */
  private runReservedUsd = 0;
  private readonly admissions = new Map<Admission, Account>();

  constructor(private readonly caps: CostCaps = {}) {}

  /** Open an item's account: a fresh token only this item's calls carry. */
  open(itemId: string): ItemAccount {
    const token = `a2ab-${randomBytes(32).toString("base64url")}`;
    const account: Account = { itemId, usage: emptyMeasuredUsage(), inFlightUsd: undefined };
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

  /**
   * Admit a call whose cost is at most `worstCaseUsd`, or refuse it (counted as a refused call of the item):
   * when the item already has a call in flight (429), or when what the run (the item) has spent plus the worst
   * cases of its calls in flight has reached its cap (402). An admitted call's worst case stays reserved against
   * both caps until {@link charge} or {@link release}; so a cap is never passed by more than one call's worst case.
   */
  admit(token: string, worstCaseUsd: number): Admission {
    const account = this.open_.get(token);
    if (!account) throw new GatewayError("E_GATEWAY_UNAUTHORIZED", "the item's gateway token was revoked");
    if (account.inFlightUsd !== undefined) {
      this.refuse(token);
      throw new GatewayError(
        "E_GATEWAY_BUSY",
        "this item already has a model call in flight; an item makes one call at a time, send the next after its answer",
      );
    }
    const { perItemUsd, perRunUsd } = this.caps;
    const runCommitted = roundUsd(this.run.cost_usd + this.runReservedUsd);
    if (perRunUsd !== undefined && runCommitted >= perRunUsd) {
      this.refuse(token, "run");
      throw new GatewayError(
        "E_GATEWAY_RUN_CAP",
        `the run's cost cap of ${perRunUsd} USD is reached (spent ${this.run.cost_usd} USD, ${roundUsd(this.runReservedUsd)} USD reserved by calls in flight); no further model calls in this assessment`,
      );
    }
    if (perItemUsd !== undefined && account.usage.cost_usd >= perItemUsd) {
      this.refuse(token, "item");
      throw new GatewayError(
        "E_GATEWAY_ITEM_CAP",
        `this item's cost cap of ${perItemUsd} USD is reached (spent ${account.usage.cost_usd} USD); no further model calls for it`,
      );
    }
    account.inFlightUsd = worstCaseUsd;
    this.runReservedUsd += worstCaseUsd;
    const admission: Admission = { token, reservedUsd: worstCaseUsd };
    this.admissions.set(admission, account);
    return admission;
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

  /** Drop an admitted call's reservation without charging it (nothing came back from the upstream). */
  release(admission: Admission): Account | undefined {
    const account = this.admissions.get(admission);
    if (!account) return undefined;
    this.admissions.delete(admission);
    account.inFlightUsd = undefined;
    this.runReservedUsd = Math.max(0, this.runReservedUsd - admission.reservedUsd);
    return account;
  }

  /**
   * Charge an admitted call and release its reservation: its tokens (undefined when the upstream gave no usable
   * `usage`, `cost` then being the call's estimated worst case) and their cost. Charged to the run also when the
   * item closed meanwhile (the tokens were spent).
   */
  charge(admission: Admission, tokens: CallTokens | undefined, cost: number): void {
    const account = this.release(admission);
    if (account === undefined) return;
    const stillOpen = this.open_.get(admission.token) === account;
    for (const u of stillOpen ? [account.usage, this.run] : [this.run]) {
      u.requests++;
      u.cost_usd = roundUsd(u.cost_usd + cost);
      if (tokens === undefined) {
        u.requests_without_usage++;
        u.estimated_cost_usd = roundUsd((u.estimated_cost_usd ?? 0) + cost);
        continue;
      }
      u.prompt_tokens += tokens.prompt_tokens;
      u.completion_tokens += tokens.completion_tokens;
      u.total_tokens += tokens.total_tokens;
    }
  }

  /** What the whole run has spent so far. */
  runTotals(): MeasuredUsage {
    return { ...this.run };
  }
}
