/**
 * The container engine for tests: the one at DOCKER_HOST, else the one
 * `scripts/container-engine.sh start` runs in its default state dir. When none
 * answers, engine tests are skipped with the reason in their name — unless
 * A2A_BENCH_REQUIRE_CONTAINER_ENGINE=1 (CI), where a missing engine fails.
 */
import { engineEnv, probeEngine } from "../../src/sandbox/docker/engine.js";
import { docker } from "../../src/sandbox/docker/docker-cli.js";

export const BASE_IMAGE = "a2a-bench/debian-base:bookworm";

export interface TestEngine {
  /** Environment for the docker CLI, or null when tests must skip. */
  env: NodeJS.ProcessEnv | null;
  /** Why engine tests are skipped (empty when they run). */
  skipReason: string;
}

/** Probe once per test file (top-level await). Throws when the engine is required and absent. */
export async function testEngine(): Promise<TestEngine> {
  const env = engineEnv();
  const probe = await probeEngine(env);
  let reason = probe.ok ? "" : probe.reason;
  if (probe.ok) {
    const img = await docker(["image", "inspect", "--format", "{{.Id}}", BASE_IMAGE], { env });
    if (img.exitCode !== 0) reason = `base image ${BASE_IMAGE} missing (run 'scripts/container-engine.sh base-image')`;
  }
  if (reason === "") return { env, skipReason: "" };
  if (process.env["A2A_BENCH_REQUIRE_CONTAINER_ENGINE"] === "1") {
    throw new Error(`A2A_BENCH_REQUIRE_CONTAINER_ENGINE=1 but ${reason}`);
  }
  console.warn(`[container tests skipped] ${reason}`);
  return { env: null, skipReason: reason };
}

/** Ids of the containers (running or not) carrying label `key=value`. */
export async function containersLabelled(env: NodeJS.ProcessEnv, key: string, value: string): Promise<string[]> {
  const r = await docker(["ps", "-aq", "--filter", `label=${key}=${value}`], { env });
  if (r.exitCode !== 0) throw new Error(`docker ps failed: ${r.stderr}`);
  return r.stdout.split("\n").filter(Boolean);
}

/** Poll until no container carries the label, or the deadline passes; returns what remains. */
export async function waitNoneLabelled(
  env: NodeJS.ProcessEnv,
  key: string,
  value: string,
  withinMs: number,
): Promise<string[]> {
  const deadline = Date.now() + withinMs;
  for (;;) {
    const left = await containersLabelled(env, key, value);
    if (left.length === 0 || Date.now() > deadline) return left;
    await new Promise((r) => setTimeout(r, 100));
  }
}
