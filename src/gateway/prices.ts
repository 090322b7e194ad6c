/**
 * The operator's price table: per model, US dollars per million input (prompt)
 * and output (completion) tokens. A call to a model the table does not list is
 * refused, so every call the gateway forwards has a cost; the answer is priced
 * as the model that answered it ({@link answerPrice}).
 */
import { GatewayError } from "./errors.js";

export interface ModelPrice {
  input_per_million_usd: number;
  output_per_million_usd: number;
}

export type PriceTable = Record<string, ModelPrice>;

/** Parse the table's JSON text (`{"<model>": {"input_per_million_usd": n, "output_per_million_usd": n}}`). */
export function parsePriceTable(text: string, what: string): PriceTable {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (err) {
    throw new GatewayError("E_GATEWAY_SETTING", `${what} is not JSON: ${(err as Error).message}`);
  }
  if (typeof value !== "object" || value === null || Array.isArray(value))
    throw new GatewayError("E_GATEWAY_SETTING", `${what} must be an object of model → prices`);
  const table: PriceTable = {};
  for (const [model, entry] of Object.entries(value as Record<string, unknown>)) {
    const e = (typeof entry === "object" && entry !== null ? entry : {}) as Record<string, unknown>;
    const input = e["input_per_million_usd"];
    const output = e["output_per_million_usd"];
    const ok = (v: unknown): v is number => typeof v === "number" && Number.isFinite(v) && v >= 0;
    if (!ok(input) || !ok(output) || Object.keys(e).length !== 2)
      throw new GatewayError(
        "E_GATEWAY_SETTING",
        `${what}: model "${model}" needs exactly input_per_million_usd and output_per_million_usd, non-negative numbers`,
      );
    table[model] = { input_per_million_usd: input, output_per_million_usd: output };
  }
  if (Object.keys(table).length === 0) throw new GatewayError("E_GATEWAY_SETTING", `${what} lists no model`);
  return table;
}

/** Cost in USD of one call's tokens at `price`. */
export function costUsd(price: ModelPrice, promptTokens: number, completionTokens: number): number {
  return (promptTokens * price.input_per_million_usd + completionTokens * price.output_per_million_usd) / 1_000_000;
}

/** The table's highest input and highest output price (each the maximum over all models): an upper bound of any call. */
export function highestPrice(table: PriceTable): ModelPrice {
  const prices = Object.values(table);
  return {
    input_per_million_usd: Math.max(0, ...prices.map((p) => p.input_per_million_usd)),
    output_per_million_usd: Math.max(0, ...prices.map((p) => p.output_per_million_usd)),
  };
}

/**
 * The price of the model an answer names (its `model`): the table's entry of that name, or of the longest name
 * the answer's extends by a dated snapshot suffix (`gpt-4o-mini-2024-07-18` is priced as `gpt-4o-mini`,
 * `claude-3-5-sonnet-20241022` as `claude-3-5-sonnet`: a dash then digits and dashes only). An answer naming no
 * model, or one the table does not price, is priced at {@link highestPrice}: the participant cannot make a dear
 * model answer at a cheap price.
 */
export function answerPrice(table: PriceTable, answerModel: unknown): { price: ModelPrice; model: string | undefined } {
  if (typeof answerModel === "string") {
    const base = Object.hasOwn(table, answerModel)
      ? answerModel
      : Object.keys(table)
          .filter((m) => answerModel.startsWith(m + "-") && /^-[0-9][0-9-]*$/.test(answerModel.slice(m.length)))
          .sort((a, b) => b.length - a.length)[0];
    const price = base === undefined ? undefined : table[base];
    if (price !== undefined) return { price, model: base };
  }
  return { price: highestPrice(table), model: undefined };
}
