/**
 * The operator's gateway settings, read from the environment under one prefix:
 * `GREEN_MODEL_GATEWAY_*` for the green agent (which hands them to its runners
 * as `A2A_BENCH_MODEL_GATEWAY_*`), `A2A_BENCH_MODEL_GATEWAY_*` for a runner.
 */
import { GatewayError } from "./errors.js";
import { parsePriceTable, type PriceTable } from "./prices.js";

export const GREEN_GATEWAY_PREFIX = "GREEN_MODEL_GATEWAY_";
export const RUNNER_GATEWAY_PREFIX = "A2A_BENCH_MODEL_GATEWAY_";

/** The settings' names after the prefix. */
export const GATEWAY_SETTING_SUFFIXES = [
  "UPSTREAM",
  "KEY",
  "PRICES",
  "HOST",
  "PUBLIC_HOST",
  "TIMEOUT_SECONDS",
] as const;

/** Per-call limit towards the upstream when none is set, seconds. */
export const DEFAULT_UPSTREAM_TIMEOUT_S = 600;

export interface GatewaySettings {
  /** Base URL of the operator's OpenAI-compatible upstream (…/v1). */
  upstream: string;
  /** The operator's key for the upstream. */
  upstreamKey: string | undefined;
  prices: PriceTable;
  /** Address the gateway listens on; default 127.0.0.1. */
  host: string;
  /** Host name the participant is told to use; default {@link host}. */
  publicHost: string;
  upstreamTimeoutMs: number;
}

/** The settings under `prefix`, or undefined when `<prefix>UPSTREAM` is unset (no gateway offered). */
export function gatewaySettingsFromEnv(env: NodeJS.ProcessEnv, prefix: string): GatewaySettings | undefined {
  const get = (suffix: (typeof GATEWAY_SETTING_SUFFIXES)[number]): string | undefined => {
    const v = env[prefix + suffix];
    return v === undefined || v.trim() === "" ? undefined : v.trim();
  };
  const upstream = get("UPSTREAM");
  if (upstream === undefined) return undefined;
  let url: URL;
  try {
    url = new URL(upstream);
  } catch {
    throw new GatewayError("E_GATEWAY_SETTING", `${prefix}UPSTREAM must be an http(s) URL, got "${upstream}"`);
  }
  if (url.protocol !== "http:" && url.protocol !== "https:")
    throw new GatewayError("E_GATEWAY_SETTING", `${prefix}UPSTREAM must be an http(s) URL, got "${upstream}"`);
  const pricesText = get("PRICES");
  if (pricesText === undefined)
    throw new GatewayError(
      "E_GATEWAY_SETTING",
      `${prefix}PRICES must be set with ${prefix}UPSTREAM: a JSON object of model → {input_per_million_usd, output_per_million_usd}`,
    );
  const timeoutRaw = get("TIMEOUT_SECONDS");
  const timeout = timeoutRaw === undefined ? DEFAULT_UPSTREAM_TIMEOUT_S : Number(timeoutRaw);
  if (!Number.isFinite(timeout) || timeout <= 0)
    throw new GatewayError(
      "E_GATEWAY_SETTING",
      `${prefix}TIMEOUT_SECONDS must be a positive number, got "${timeoutRaw}"`,
    );
  const host = get("HOST") ?? "127.0.0.1";
  return {
    upstream,
    upstreamKey: get("KEY"),
    prices: parsePriceTable(pricesText, `${prefix}PRICES`),
    host,
    publicHost: get("PUBLIC_HOST") ?? host,
    upstreamTimeoutMs: timeout * 1000,
  };
}

/** The runner's environment entries carrying the green's gateway settings (empty when it has none). */
export function runnerGatewayEnv(env: NodeJS.ProcessEnv): Record<string, string> {
  const out: Record<string, string> = {};
  for (const suffix of GATEWAY_SETTING_SUFFIXES) {
    const v = env[GREEN_GATEWAY_PREFIX + suffix];
    if (v !== undefined) out[RUNNER_GATEWAY_PREFIX + suffix] = v;
  }
  return out;
}
