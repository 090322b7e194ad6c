import { describe, expect, it } from "vitest";
import { gatewaySettingsFromEnv, runnerGatewayEnv } from "../../src/gateway/settings.js";
import { parsePriceTable, costUsd } from "../../src/gateway/prices.js";

const PRICES = '{"m": {"input_per_million_usd": 3, "output_per_million_usd": 15}}';

describe("gateway settings", () => {
  it("no upstream: no gateway", () => {
    expect(gatewaySettingsFromEnv({}, "GREEN_MODEL_GATEWAY_")).toBeUndefined();
  });

  it("reads upstream, key, prices, hosts and timeout under the prefix", () => {
    const s = gatewaySettingsFromEnv(
      {
        GREEN_MODEL_GATEWAY_UPSTREAM: "https://api.example.com/v1",
        GREEN_MODEL_GATEWAY_KEY: "sk-op",
        GREEN_MODEL_GATEWAY_PRICES: PRICES,
        GREEN_MODEL_GATEWAY_HOST: "0.0.0.0",
        GREEN_MODEL_GATEWAY_PUBLIC_HOST: "green",
      },
      "GREEN_MODEL_GATEWAY_",
    );
    expect(s).toMatchObject({
      upstream: "https://api.example.com/v1",
      upstreamKey: "sk-op",
      host: "0.0.0.0",
      publicHost: "green",
      prices: { m: { input_per_million_usd: 3, output_per_million_usd: 15 } },
    });
  });

  it("names the variable of a wrong setting", () => {
    expect(() => gatewaySettingsFromEnv({ X_UPSTREAM: "ftp://a" }, "X_")).toThrow(/X_UPSTREAM must be an http/);
    expect(() => gatewaySettingsFromEnv({ X_UPSTREAM: "http://a" }, "X_")).toThrow(/X_PRICES must be set/);
    expect(() => gatewaySettingsFromEnv({ X_UPSTREAM: "http://a", X_PRICES: "{" }, "X_")).toThrow(/not JSON/);
    expect(() =>
      gatewaySettingsFromEnv({ X_UPSTREAM: "http://a", X_PRICES: '{"m": {"input_per_million_usd": -1}}' }, "X_"),
    ).toThrow(/model "m" needs/);
  });

  it("hands the green's settings to the runner under the runner's prefix", () => {
    expect(
      runnerGatewayEnv({ GREEN_MODEL_GATEWAY_UPSTREAM: "http://u", GREEN_MODEL_GATEWAY_KEY: "k", OTHER: "x" }),
    ).toEqual({ A2A_BENCH_MODEL_GATEWAY_UPSTREAM: "http://u", A2A_BENCH_MODEL_GATEWAY_KEY: "k" });
  });

  it("prices per million tokens", () => {
    const t = parsePriceTable(PRICES, "p");
    expect(costUsd(t["m"]!, 1_000_000, 100_000)).toBeCloseTo(4.5, 10);
  });
});
