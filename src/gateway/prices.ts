/**
 * The operator's price table: per model, US dollars per million input (prompt)
 * and output (completion) tokens. A call to a model the table does not list is
 * refused, so every call the gateway forwards has a cost.
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
