/**
 * The engine that runs an assessment's shards, as the operator chose it
 * (`shard_engine` in the config; its settings from the environment, so a
 * request cannot choose an image, a mount or a network of the operator's
 * hosts): `local` (local.ts), `swarm` (swarm.ts: a replicated-job at
 * DOCKER_HOST, which must be a Swarm manager), `kubernetes` (the Indexed Job's
 * manifest, kubernetes-job.ts, written for kubectl: nothing here talks to a
 * cluster for shards). A missing setting or an engine that cannot run shards
 * is a ShardEngineError naming what to do.
 */
import { resolve } from "node:path";
import { BenchError } from "../util/errors.js";
import { docker, engineName } from "../sandbox/docker/docker-cli.js";
import type { SwarmJobSpec } from "./swarm.js";
import type { IndexedJobSpec } from "./kubernetes-job.js";

export type ShardEngine = "local" | "swarm" | "kubernetes";

/** The runner image of the Swarm tasks and the Kubernetes pods (node and this package at /app). */
export const SHARD_IMAGE_ENV = "A2A_BENCH_SHARD_IMAGE";
/** A network for the Swarm tasks (e.g. `host`, for a participant on the node's loopback). */
export const SHARD_NETWORK_ENV = "A2A_BENCH_SHARD_NETWORK";
/** More bind mounts of the Swarm tasks, `SRC:TARGET[:ro]`, comma-separated. */
export const SHARD_MOUNTS_ENV = "A2A_BENCH_SHARD_MOUNTS";
/** The ReadWriteMany claim the Kubernetes pods write to. */
export const SHARD_CLAIM_ENV = "A2A_BENCH_SHARD_CLAIM";
/** The namespace of the Kubernetes Job (default: kubectl's). */
export const SHARD_NAMESPACE_ENV = "A2A_BENCH_SHARD_NAMESPACE";

/** Why the chosen shard engine cannot run the shards. */
export class ShardEngineError extends BenchError {
  constructor(code: "E_SHARD_ENGINE_SETTING" | "E_SHARD_ENGINE_UNAVAILABLE", message: string) {
    super(code, message);
  }
}

/** A name Docker and Kubernetes both accept (a DNS label): the run id lower-cased, other characters as `-`. */
export function shardJobName(runId: string): string {
  const name = `a2a-${runId.toLowerCase().replace(/[^a-z0-9-]/g, "-")}`.slice(0, 63);
  return name.replace(/-+$/, "");
}

function setting(env: NodeJS.ProcessEnv, name: string, engine: ShardEngine, what: string): string {
  const v = env[name]?.trim();
  if (!v) throw new ShardEngineError("E_SHARD_ENGINE_SETTING", `shard_engine ${engine} needs ${name}: ${what}`);
  return v;
}

/** `SRC:TARGET[:ro]` items (pure). */
export function parseShardMounts(text: string | undefined): SwarmJobSpec["mounts"] {
  if (!text?.trim()) return [];
  return text
    .split(",")
    .map((m) => m.trim())
    .filter(Boolean)
    .map((m) => {
      const [source, target, mode, ...extra] = m.split(":");
      if (!source || !target || extra.length > 0 || (mode !== undefined && mode !== "ro"))
        throw new ShardEngineError("E_SHARD_ENGINE_SETTING", `${SHARD_MOUNTS_ENV}: "${m}" is not SRC:TARGET[:ro]`);
      return { source: resolve(source), target, ...(mode === "ro" ? { readOnly: true } : {}) };
    });
}

/** The Swarm job of a run from the environment (pure); the output directory is mounted at its own path. */
export function swarmJobFromEnv(
  o: { runId: string; benchmark: string; shards: number; out: string },
  env: NodeJS.ProcessEnv,
): SwarmJobSpec {
  const out = resolve(o.out);
  const network = env[SHARD_NETWORK_ENV]?.trim();
  return {
    name: shardJobName(o.runId),
    image: setting(env, SHARD_IMAGE_ENV, "swarm", "an image with node and this package at /app (the runner image)"),
    benchmark: o.benchmark,
    runId: o.runId,
    shards: o.shards,
    cli: "/app/dist/cli.js",
    outInContainer: out,
    mounts: [{ source: out, target: out }, ...parseShardMounts(env[SHARD_MOUNTS_ENV])],
    ...(network ? { network } : {}),
  };
}

/** Resolves when the engine at DOCKER_HOST is a Swarm manager; else a ShardEngineError saying what to do. */
export async function checkSwarmManager(env: NodeJS.ProcessEnv): Promise<void> {
  const where = engineName(env);
  const r = await docker(["info", "--format", "{{.Swarm.LocalNodeState}} {{.Swarm.ControlAvailable}}"], { env });
  if (r.exitCode !== 0)
    throw new ShardEngineError(
      "E_SHARD_ENGINE_UNAVAILABLE",
      `shard_engine swarm: no container engine answers at ${where}: ${(r.spawnError ?? r.stderr.trim()) || `exit ${r.exitCode}`}`,
    );
  const [state = "", control = ""] = r.stdout.trim().split(" ");
  if (state !== "active" || control !== "true")
    throw new ShardEngineError(
      "E_SHARD_ENGINE_UNAVAILABLE",
      `shard_engine swarm: the engine at ${where} is not a Swarm manager (swarm state ${state || "unknown"}${state === "active" ? ", a worker" : ""}): run \`docker swarm init\` there, or set DOCKER_HOST to a manager`,
    );
}

/** The Indexed Job of a run from the environment (pure). */
export function indexedJobFromEnv(
  o: { runId: string; benchmark: string; shards: number },
  env: NodeJS.ProcessEnv,
): IndexedJobSpec {
  const name = shardJobName(o.runId);
  const namespace = env[SHARD_NAMESPACE_ENV]?.trim();
  return {
    name,
    ...(namespace ? { namespace } : {}),
    image: setting(
      env,
      SHARD_IMAGE_ENV,
      "kubernetes",
      "an image with node and this package at /app (the runner image)",
    ),
    benchmark: o.benchmark,
    runId: o.runId,
    shards: o.shards,
    claim: setting(env, SHARD_CLAIM_ENV, "kubernetes", "the ReadWriteMany PersistentVolumeClaim the pods write to"),
    configMap: `${name}-config`.slice(0, 63),
  };
}
