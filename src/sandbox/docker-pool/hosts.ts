/**
 * The engines of a docker pool: `docker_hosts` in a run's config, or
 * $A2A_BENCH_DOCKER_HOSTS (comma- or space-separated), each a DOCKER_HOST URL
 * the docker CLI speaks to (unix://, tcp://, ssh://), optionally with a
 * capacity (`URL#capacity=N`: jobs and environments in flight there at once).
 */
import { SandboxError } from "../errors.js";

/** One engine of the pool. */
export interface PoolHost {
  /** A DOCKER_HOST URL. */
  url: string;
  /** Jobs and open environments at once on it; default: the pool's concurrency per engine. */
  capacity?: number;
}

/** The variable an operator sets instead of `docker_hosts`. */
export const DOCKER_HOSTS_ENV = "A2A_BENCH_DOCKER_HOSTS";

/** One host as written (`URL` or `URL#capacity=N`), checked; E_SANDBOX_OPTIONS naming what is wrong. */
export function parsePoolHost(text: string): PoolHost {
  const [url = "", fragment] = text.trim().split("#", 2);
  let capacity: number | undefined;
  if (fragment !== undefined) {
    const m = /^capacity=([1-9]\d{0,4})$/.exec(fragment);
    if (!m) throw new SandboxError("E_SANDBOX_OPTIONS", `docker_hosts: "${text}": after # only capacity=N (N ≥ 1)`);
    capacity = Number(m[1]);
  }
  const ok =
    /^unix:\/\/\/\S+$/.test(url) ||
    /^tcp:\/\/[^\s/:]+:\d{1,5}$/.test(url) ||
    /^ssh:\/\/([^\s@/]+@)?[^\s/:@]+(:\d{1,5})?$/.test(url);
  if (!ok)
    throw new SandboxError(
      "E_SANDBOX_OPTIONS",
      `docker_hosts: "${text}" is not an engine URL (unix:///path/docker.sock, tcp://host:port, ssh://[user@]host[:port])`,
    );
  return capacity === undefined ? { url } : { url, capacity };
}

/** The pool's hosts: the given list, else $A2A_BENCH_DOCKER_HOSTS; at least one, no URL twice. */
export function poolHosts(given: readonly (string | PoolHost)[] | undefined, env: NodeJS.ProcessEnv): PoolHost[] {
  const raw = given ?? (env[DOCKER_HOSTS_ENV] ?? "").split(/[\s,]+/).filter(Boolean);
  const hosts = raw.map((h) => (typeof h === "string" ? parsePoolHost(h) : { ...parsePoolHost(h.url), ...h }));
  if (hosts.length === 0)
    throw new SandboxError(
      "E_SANDBOX_OPTIONS",
      `the docker-pool backend needs its engines: docker_hosts in the config, or ${DOCKER_HOSTS_ENV}`,
    );
  const seen = new Set<string>();
  for (const h of hosts) {
    if (seen.has(h.url)) throw new SandboxError("E_SANDBOX_OPTIONS", `docker_hosts: ${h.url} is listed twice`);
    seen.add(h.url);
  }
  return hosts;
}
