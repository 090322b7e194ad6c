/**
 * Operator settings of the green agent, read from the environment once at the
 * entry with exact messages naming the variable. Units: ms inside, seconds in env.
 */
import { resolve } from "node:path";
import { BenchError } from "../util/errors.js";
import { DEFAULT_MAX_BODY_BYTES, MAX_BODY_ENV, parseMaxBodyBytes } from "../a2a/body-limit.js";
import { allowedRoots } from "./allowed-roots.js";
import { DEFAULT_HEARTBEAT_MS } from "./heartbeat.js";
import { DEFAULT_GRACE_MS } from "./supervisor/spawn.js";

export interface GreenSettings {
  /** Where work dirs go: `<resultsRoot>/a2a/<run_id>/`. Env GREEN_RESULTS_DIR, default `./results`. */
  resultsRoot: string;
  /** Roots request paths must resolve into. Env GREEN_ALLOWED_ROOTS (`:`-list). */
  allowedRoots: string[];
  /** Env GREEN_MAX_CONCURRENT_TASKS, default 1. */
  maxConcurrent: number;
  /** SIGTERM → SIGKILL grace on cancel, ms. Env GREEN_CANCEL_GRACE_SECONDS, default 5 s. */
  graceMs: number;
  /** Heartbeat interval while the runner is quiet, ms. Env GREEN_HEARTBEAT_SECONDS, default 30 s. */
  heartbeatMs: number;
  /** Whole-run limit, ms; none unless env GREEN_RUNNER_TIMEOUT_SECONDS is set. */
  runnerTimeoutMs: number | undefined;
  /** Extra env names passed to runners. Env GREEN_RUNNER_ENV_ALLOW (comma list). */
  runnerEnvAllow: string[];
  /** Bearer token JSON-RPC requests must carry; none (no auth) unless env GREEN_AUTH_TOKEN is set. */
  authToken: string | undefined;
  /** Largest JSON-RPC request body, bytes. Env A2A_MAX_BODY_BYTES, default 1 MiB. */
  maxBodyBytes: number;
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
  const timeout = positive(env, "GREEN_RUNNER_TIMEOUT_SECONDS", false);
  return {
    resultsRoot: resolve(cwd, env["GREEN_RESULTS_DIR"] || "results"),
    allowedRoots: allowedRoots(env, cwd),
    maxConcurrent: positive(env, "GREEN_MAX_CONCURRENT_TASKS", true) ?? 1,
    graceMs: (positive(env, "GREEN_CANCEL_GRACE_SECONDS", false) ?? DEFAULT_GRACE_MS / 1000) * 1000,
    heartbeatMs: (positive(env, "GREEN_HEARTBEAT_SECONDS", false) ?? DEFAULT_HEARTBEAT_MS / 1000) * 1000,
    runnerTimeoutMs: timeout === undefined ? undefined : timeout * 1000,
    authToken: env["GREEN_AUTH_TOKEN"] || undefined,
    maxBodyBytes: parseMaxBodyBytes(env[MAX_BODY_ENV], MAX_BODY_ENV) ?? DEFAULT_MAX_BODY_BYTES,
    runnerEnvAllow: (env["GREEN_RUNNER_ENV_ALLOW"] ?? "").split(",").map((s) => s.trim()).filter(Boolean),
  };
}
