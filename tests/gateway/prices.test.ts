import { describe, expect, it } from "vitest";
import { answerPrice, costUsd, highestPrice, parsePriceTable } from "../../src/gateway/prices.js";

const TABLE = parsePriceTable(
  JSON.stringify({
    "gpt-4o": { input_per_million_usd: 2.5, output_per_million_usd: 10 },
    "gpt-4o-mini": { input_per_million_usd: 0.15, output_per_million_usd: 0.6 },
    "odd-model": { input_per_million_usd: 20, output_per_million_usd: 1 },
  }),
  "prices",
);

describe("prices", () => {
  it("the highest price is each of input and output at its maximum over the table (an upper bound of any call)", () => {
    expect(highestPrice(TABLE)).toEqual({ input_per_million_usd: 20, output_per_million_usd: 10 });
  });

  it("an answer is priced as the model it names, a dated snapshot as its longest priced base", () => {
    expect(answerPrice(TABLE, "gpt-4o-mini")).toMatchObject({ model: "gpt-4o-mini" });
    expect(answerPrice(TABLE, "gpt-4o-mini-2024-07-18")).toMatchObject({ model: "gpt-4o-mini" });
    expect(answerPrice(TABLE, "gpt-4o-2024-08-06")).toMatchObject({ model: "gpt-4o" });
    expect(answerPrice(TABLE, "gpt-4o-20240806")).toMatchObject({ model: "gpt-4o" });
  });

  it("an answer naming no model, an unpriced one, or a priced name with another suffix is priced at the highest price", () => {
    for (const named of [undefined, 42, "", "claude-x", "gpt-4o-mini-high", "gpt-4o-2024-08-06-turbo", "__proto__"]) {
      const { price, model } = answerPrice(TABLE, named);
      expect(model, String(named)).toBeUndefined();
      expect(price).toEqual(highestPrice(TABLE));
    }
  });

  it("a call's cost is its tokens at the per-million prices", () => {
    expect(costUsd({ input_per_million_usd: 1, output_per_million_usd: 2 }, 1000, 500)).toBe(0.002);
  });
});
