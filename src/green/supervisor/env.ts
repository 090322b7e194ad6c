/**
 * The runner's environment is an allow-list, not the green agent's whole
 * environment: the runner gets what it needs (PATH, locale, temp dir, our own
 * A2A_BENCH_* settings), what selects each sandbox backend's engine or service
 * (the backends declare it: DOCKER_HOST and the docker CLI's other selectors,
 * E2B_*; see SandboxBackendDescriptor.selectionEnv), and no other secret.
 */
import { backendSelectionEnv } from "../../sandbox/registry.js";

/** Exact names passed through (besides the backends' selection variables). */
export const RUNNER_ENV_NAMES: readonly string[] = [
  "PATH",
  "HOME",
  "USER",
  "LOGNAME",
  "SHELL",
  "LANG",
  "LANGUAGE",
  "TZ",
  "TMPDIR",
  "TEMP",
  "TMP",
  "LOG_LEVEL",
  "NODE_EXTRA_CA_CERTS",
  "SSL_CERT_FILE",
  "SSL_CERT_DIR",
];

/** Name prefixes passed through (besides the backends' selection prefixes). */
export const RUNNER_ENV_PREFIXES: readonly string[] = ["LC_", "A2A_BENCH_", "SMI_"];

/** Every name and prefix a runner gets: the fixed lists and what selects each registered sandbox backend. */
export function runnerEnvAllowList(): { names: string[]; prefixes: string[] } {
  const backends = backendSelectionEnv();
  return {
    names: [...new Set([...RUNNER_ENV_NAMES, ...backends.names])],
    prefixes: [...new Set([...RUNNER_ENV_PREFIXES, ...backends.prefixes])],
  };
}

/**
 * Filter `env` down to the allow-list plus `extraNames` (operator-configured,
 * e.g. from GREEN_RUNNER_ENV_ALLOW).
 */
export function runnerEnv(env: NodeJS.ProcessEnv, extraNames: readonly string[] = []): NodeJS.ProcessEnv {
  const { names, prefixes } = runnerEnvAllowList();
  const out: NodeJS.ProcessEnv = {};
  for (const [k, v] of Object.entries(env)) {
    if (v === undefined) continue;
    if (names.includes(k) || extraNames.includes(k) || prefixes.some((p) => k.startsWith(p))) {
      out[k] = v;
    }
  }
  return out;
}
