/**
 * Where the container engine is: DOCKER_HOST when set, else the socket of
 * `scripts/container-engine.sh start` in its default state dir
 * (`$A2A_BENCH_ENGINE_DIR`, else /tmp/a2a-bench-engine) when it exists, else
 * the CLI's own default (/var/run/docker.sock, or Podman's).
 */
import { existsSync } from "node:fs";
import { join } from "node:path";
import { docker, engineName } from "./docker-cli.js";

/** Default state dir of scripts/container-engine.sh. */
export const DEFAULT_ENGINE_DIR = "/tmp/a2a-bench-engine";

/** The environment to run the docker CLI with (DOCKER_HOST resolved as described above). */
export function engineEnv(env: NodeJS.ProcessEnv = process.env): NodeJS.ProcessEnv {
  if (env["DOCKER_HOST"]) return env;
  const sock = join(env["A2A_BENCH_ENGINE_DIR"] || DEFAULT_ENGINE_DIR, "docker.sock");
  return existsSync(sock) ? { ...env, DOCKER_HOST: `unix://${sock}` } : env;
}

/** Whether an engine answers, and if not why (the CLI's message). */
export async function probeEngine(
  env: NodeJS.ProcessEnv = engineEnv(),
): Promise<{ ok: true; version: string } | { ok: false; reason: string }> {
  const r = await docker(["version", "--format", "{{.Server.Version}}"], { env, signal: AbortSignal.timeout(10_000) });
  if (r.exitCode === 0) return { ok: true, version: r.stdout.trim() };
  const where = engineName(env);
  return {
    ok: false,
    reason: `no container engine answers at ${where}: ${r.spawnError ?? (r.stderr.trim().split("\n").pop() || `exit ${r.exitCode}`)} (start one with 'scripts/container-engine.sh start' and export the DOCKER_HOST it prints)`,
  };
}
