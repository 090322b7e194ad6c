/**
 * The runner's environment is an allow-list, not the green agent's whole
 * environment: the runner gets what it needs (PATH, locale, temp dir, our own
 * A2A_BENCH_* settings, the sandbox provider's E2B_* key) and no other secret.
 */

/** Exact names passed through. */
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

/** Name prefixes passed through. */
export const RUNNER_ENV_PREFIXES: readonly string[] = ["LC_", "A2A_BENCH_", "E2B_", "SMI_"];

/**
 * Filter `env` down to the allow-list plus `extraNames` (operator-configured,
 * e.g. from GREEN_RUNNER_ENV_ALLOW).
 */
export function runnerEnv(env: NodeJS.ProcessEnv, extraNames: readonly string[] = []): NodeJS.ProcessEnv {
  const out: NodeJS.ProcessEnv = {};
  for (const [k, v] of Object.entries(env)) {
    if (v === undefined) continue;
    if (RUNNER_ENV_NAMES.includes(k) || extraNames.includes(k) || RUNNER_ENV_PREFIXES.some((p) => k.startsWith(p))) {
      out[k] = v;
    }
  }
  return out;
}
