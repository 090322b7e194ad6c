/**
 * Operator settings of the green agent, read from the environment once at the
 * entry with exact messages naming the variable. Units: ms inside, seconds in env.
 */
import { resolve } from "node:path";
import { BenchError } from "../util/errors.js";
import { DEFAULT_MAX_BODY_BYTES, MAX_BODY_ENV, parseMaxBodyBytes } from "../a2a/server/body-limit.js";
import { allowedRoots } from "./allowed-roots.js";
import { DEFAULT_HEARTBEAT_MS } from "./heartbeat.js";
import { DEFAULT_GRACE_MS } from "../process/grace.js";
import { closestName } from "../util/suggest.js";
import {
  GATEWAY_SETTING_SUFFIXES,
  GREEN_GATEWAY_PREFIX,
  gatewaySettingsFromEnv,
  type GatewaySettings,
} from "../gateway/settings.js";

export interface GreenSettings {
  /** Where work dirs go: `<resultsRoot>/a2a/<run_id>/`. Env GREEN_RESULTS_DIR, default `./results`. */
  resultsRoot: string;
  /** Roots request paths must resolve into. Env GREEN_ALLOWED_ROOTS (`:`-list). */
  allowedRoots: string[];
  /** Env GREEN_MAX_CONCURRENT_TASKS, default 1. */
  maxConcurrent: number;
  /**
   * Assessments that may wait for a slot; one more is refused with JSON-RPC
   * error {@link QUEUE_FULL_CODE}. Env GREEN_MAX_QUEUED_TASKS, default {@link DEFAULT_MAX_QUEUED}.
   */
  maxQueued: number;
  /** SIGTERM → SIGKILL grace on cancel, ms. Env GREEN_CANCEL_GRACE_SECONDS, default 5 s. */
  graceMs: number;
  /** Heartbeat interval while the runner is quiet, ms. Env GREEN_HEARTBEAT_SECONDS, default 30 s. */
  heartbeatMs: number;
  /**
   * Whole-assessment limit, ms: the runner is stopped (SIGTERM, grace, SIGKILL) and the task fails.
   * Env GREEN_RUNNER_TIMEOUT_SECONDS, default {@link DEFAULT_RUNNER_TIMEOUT_MS}; `0` = no limit (undefined).
   */
  runnerTimeoutMs: number | undefined;
  /** Extra env names passed to runners. Env GREEN_RUNNER_ENV_ALLOW (comma list). */
  runnerEnvAllow: string[];
  /** Bearer token JSON-RPC requests must carry; none (no auth) unless env GREEN_AUTH_TOKEN is set. */
  authToken: string | undefined;
  /** Largest JSON-RPC request body, bytes. Env A2A_MAX_BODY_BYTES, default 1 MiB. */
  maxBodyBytes: number;
  /**
   * Let A2A requests run untrusted code below full isolation (unshare/none). Env
   * GREEN_ALLOW_WEAK_ISOLATION=1 or `green --allow-weak-isolation`; default false (refused).
   */
  allowWeakIsolation: boolean;
  /**
   * Listen on a non-loopback address without GREEN_AUTH_TOKEN. Env GREEN_ALLOW_UNAUTHENTICATED=1
   * or `green --allow-unauthenticated`; default false (start-up refused).
   */
  allowUnauthenticated: boolean;
  /**
   * The model gateway offered to requests with `model_gateway` (docs/model-gateway.md): env
   * GREEN_MODEL_GATEWAY_UPSTREAM (unset: none offered), _KEY, _PRICES, _HOST, _PUBLIC_HOST, _TIMEOUT_SECONDS.
   */
  modelGateway: GatewaySettings | undefined;
}

/** Default of GREEN_MAX_QUEUED_TASKS: enough for a leaderboard's shards to line up, small enough to bound memory. */
export const DEFAULT_MAX_QUEUED = 16;
/** Default of GREEN_RUNNER_TIMEOUT_SECONDS, ms: 6 h, above the longest full run measured here (SWE-bench Verified with a slow agent). */
export const DEFAULT_RUNNER_TIMEOUT_MS = 6 * 60 * 60 * 1000;

/** Every GREEN_* variable the green reads (here and where it builds runner commands). */
export const GREEN_SETTING_NAMES = [
  "GREEN_RESULTS_DIR",
  "GREEN_ALLOWED_ROOTS",
  "GREEN_MAX_CONCURRENT_TASKS",
  "GREEN_MAX_QUEUED_TASKS",
  "GREEN_CANCEL_GRACE_SECONDS",
  "GREEN_HEARTBEAT_SECONDS",
  "GREEN_RUNNER_TIMEOUT_SECONDS",
  "GREEN_RUNNER_ENV_ALLOW",
  "GREEN_AUTH_TOKEN",
  "GREEN_ALLOW_WEAK_ISOLATION",
  "GREEN_ALLOW_UNAUTHENTICATED",
  "GREEN_SMI_INHABIT_COMMAND",
  ...GATEWAY_SETTING_SUFFIXES.map((s) => `${GREEN_GATEWAY_PREFIX}${s}` as const),
] as const;

/**
 * One warning per GREEN_* variable the green does not read: a misspelt setting would otherwise be ignored
 * without a word (the default applies). Not an error, since a deployment may set other GREEN_* names.
 */
export function unknownSettingWarnings(env: NodeJS.ProcessEnv): string[] {
  const known: readonly string[] = GREEN_SETTING_NAMES;
  return Object.keys(env)
    .filter((name) => name.startsWith("GREEN_") && !known.includes(name))
    .sort()
    .map((name) => {
      const near = closestName(name, known);
      return `${name} is not a green setting and is ignored${near === undefined ? "" : ` (did you mean ${near}?)`}`;
    });
}

/** A yes/no variable: 1/true/yes or 0/false/no (case-insensitive); unset or empty = false. */
export function flag(env: NodeJS.ProcessEnv, name: string): boolean {
  const raw = (env[name] ?? "").trim().toLowerCase();
  if (raw === "" || raw === "0" || raw === "false" || raw === "no") return false;
  if (raw === "1" || raw === "true" || raw === "yes") return true;
  throw new BenchError("E_SETTING", `${name} must be 1/true/yes or 0/false/no, got "${env[name]}"`);
}

function nonNegative(env: NodeJS.ProcessEnv, name: string): number | undefined {
  const raw = env[name];
  if (raw === undefined || raw === "") return undefined;
  const v = Number(raw);
  if (!Number.isInteger(v) || v < 0)
    throw new BenchError("E_SETTING", `${name} must be a non-negative integer, got "${raw}"`);
  return v;
}

function positive(env: NodeJS.ProcessEnv, name: string, integer: boolean): number | undefined {
  const raw = env[name];
  if (raw === undefined || raw === "") return undefined;
  const v = Number(raw);
  if (!Number.isFinite(v) || v <= 0 || (integer && !Number.isInteger(v))) {
    throw new BenchError("E_SETTING", `${name} must be a positive ${integer ? "integer" : "number"}, got "${raw}"`);
  }
  return v;
}

export function settingsFromEnv(env: NodeJS.ProcessEnv, cwd = process.cwd()): GreenSettings {
  const timeoutRaw = env["GREEN_RUNNER_TIMEOUT_SECONDS"];
  const timeout = timeoutRaw === "0" ? 0 : positive(env, "GREEN_RUNNER_TIMEOUT_SECONDS", false);
  return {
    resultsRoot: resolve(cwd, env["GREEN_RESULTS_DIR"] || "results"),
    allowedRoots: allowedRoots(env, cwd),
    maxConcurrent: positive(env, "GREEN_MAX_CONCURRENT_TASKS", true) ?? 1,
    graceMs: (positive(env, "GREEN_CANCEL_GRACE_SECONDS", false) ?? DEFAULT_GRACE_MS / 1000) * 1000,
    heartbeatMs: (positive(env, "GREEN_HEARTBEAT_SECONDS", false) ?? DEFAULT_HEARTBEAT_MS / 1000) * 1000,
    maxQueued: nonNegative(env, "GREEN_MAX_QUEUED_TASKS") ?? DEFAULT_MAX_QUEUED,
    runnerTimeoutMs: timeout === undefined ? DEFAULT_RUNNER_TIMEOUT_MS : timeout === 0 ? undefined : timeout * 1000,
    allowWeakIsolation: flag(env, "GREEN_ALLOW_WEAK_ISOLATION"),
    allowUnauthenticated: flag(env, "GREEN_ALLOW_UNAUTHENTICATED"),
    authToken: env["GREEN_AUTH_TOKEN"] || undefined,
    modelGateway: gatewaySettingsFromEnv(env, GREEN_GATEWAY_PREFIX),
    maxBodyBytes: parseMaxBodyBytes(env[MAX_BODY_ENV], MAX_BODY_ENV) ?? DEFAULT_MAX_BODY_BYTES,
    runnerEnvAllow: (env["GREEN_RUNNER_ENV_ALLOW"] ?? "")
      .split(",")
      .map((s) => s.trim())
      .filter(Boolean),
  };
}
