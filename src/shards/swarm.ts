/**
 * An assessment's N shards as one Docker Swarm job: a `replicated-job`
 * service of N tasks (`--replicas N --max-concurrent M`), each task one
 * runner on shard `slot` of N, writing to `<out>/shard-<i>` on a volume every
 * task mounts; Swarm schedules the tasks on its nodes and starts a task again
 * when it fails (`--restart-condition on-failure`), and the task then
 * continues its shard from the checkpoint (`--resume`: finished rows kept,
 * each verified by its checksum). When every shard finished, they are merged
 * (merge.ts). Each row's provenance names the Swarm task that judged it
 * (`{{.Task.Name}}`), engine `swarm`.
 *
 * The shard index is the task's slot. A replicated job's slots are 0…N-1, and
 * Docker's template renders slot 0 as the node id (as for a global service),
 * so a slot that is not a number is shard 0.
 */
import { writeFile, mkdir } from "node:fs/promises";
import { existsSync } from "node:fs";
import { join } from "node:path";
import type { Logger } from "../util/logger.js";
import { BenchError } from "../util/errors.js";
import { docker, cliFailure } from "../sandbox/docker/docker-cli.js";
import { CHECKPOINT_FILE } from "../runner/checkpoint.js";
import { RESULTS_FILE } from "../runner/run-benchmark.js";
import { ENGINE_ENV, WORKER_ENV } from "../runner/worker-log.js";
import { mergeShards, type MergeOutcome } from "./merge.js";
import { shardConfig, shardDir } from "./local.js";

/** The label every service of a sharded run carries (`a2a-bench.shards=<run id>`), for clean-up. */
export const SWARM_LABEL = "a2a-bench.shards";
/** The config file of the shards, in the shared output directory. */
export const SHARDS_CONFIG_FILE = "shards.config.json";

export interface SwarmJobSpec {
  /** Service name. */
  name: string;
  /** An image with node and this package (the runner image; or any node image with the package mounted). */
  image: string;
  benchmark: string;
  runId: string;
  shards: number;
  /** Tasks running at once (default: all). */
  maxConcurrent?: number;
  /** The CLI entry inside the container, e.g. `/app/dist/cli.js`. */
  cli: string;
  /** The shared output directory as the tasks see it (holds shards.config.json and shard-<i>). */
  outInContainer: string;
  /** Bind mounts (`source` on the node, `target` in the task). */
  mounts: Array<{ source: string; target: string; readOnly?: boolean }>;
  /** A network to attach the tasks to (e.g. `host`, to reach a participant on the node's loopback). */
  network?: string;
  /** Starts of a failed task after the first (default 2). */
  restartAttempts?: number;
}

const quote = (s: string): string => `'${s.replace(/'/g, `'\\''`)}'`;

/** The shell script each task runs: its shard from its slot, resumed when its checkpoint exists. */
export function shardScript(spec: SwarmJobSpec): string {
  const out = spec.outInContainer;
  return [
    `case "$A2A_BENCH_SLOT" in ''|*[!0-9]*) I=0 ;; *) I=$A2A_BENCH_SLOT ;; esac`,
    `O=${quote(out)}/shard-$I`,
    `if [ -f "$O/${CHECKPOINT_FILE}" ]; then R=--resume; else R=--force; fi`,
    `exec node ${quote(spec.cli)} run ${quote(spec.benchmark)} --config-file ${quote(`${out}/${SHARDS_CONFIG_FILE}`)}` +
      ` --shard-index "$I" --run-id ${quote(spec.runId)}-shard-"$I" --out "$O" --events $R`,
  ].join("\n");
}

/** `docker service create …` arguments of the job (pure). */
export function swarmServiceArgs(spec: SwarmJobSpec): string[] {
  const args = ["service", "create", "--detach", "--name", spec.name, "--mode", "replicated-job"];
  args.push("--replicas", String(spec.shards), "--max-concurrent", String(spec.maxConcurrent ?? spec.shards));
  args.push("--restart-condition", "on-failure", "--restart-max-attempts", String(spec.restartAttempts ?? 2));
  args.push("--label", `${SWARM_LABEL}=${spec.runId}`, "--container-label", `${SWARM_LABEL}=${spec.runId}`);
  args.push("--env", "A2A_BENCH_SLOT={{.Task.Slot}}");
  args.push("--env", `${WORKER_ENV}={{.Task.Name}}`, "--env", `${ENGINE_ENV}=swarm`);
  for (const m of spec.mounts)
    args.push("--mount", `type=bind,source=${m.source},target=${m.target}${m.readOnly ? ",readonly" : ""}`);
  if (spec.network) args.push("--network", spec.network);
  args.push(spec.image, "sh", "-c", shardScript(spec));
  return args;
}

export interface SwarmShardsOptions {
  spec: SwarmJobSpec;
  /** The assessment's resolved config (as results.json records it). */
  config: Record<string, unknown>;
  /** The shared output directory on this host (mounted at `spec.outInContainer`); the merged run goes here. */
  out: string;
  /** Environment of the docker CLI (DOCKER_HOST of a Swarm manager). */
  env: NodeJS.ProcessEnv;
  logger: Logger;
  /** Called with each look at the tasks (tests watch a task's progress through it). */
  onPoll?: (tasks: SwarmTask[]) => void;
  /** Between two looks at the service's tasks, ms (default 500). */
  pollMs?: number;
  /** Stops the job (the service is removed; BenchError E_INTERRUPTED). */
  signal?: AbortSignal;
}

/** A task of the job as `docker service ps` shows it. */
export interface SwarmTask {
  id: string;
  name: string;
  state: string;
  error: string;
}

async function tasksOf(name: string, env: NodeJS.ProcessEnv): Promise<SwarmTask[]> {
  const r = await docker(
    ["service", "ps", name, "--no-trunc", "--format", "{{.ID}}|{{.Name}}|{{.CurrentState}}|{{.Error}}"],
    {
      env,
    },
  );
  if (r.exitCode !== 0) throw new BenchError("E_SHARD_FAILED", cliFailure(`docker service ps ${name}`, r));
  return r.stdout
    .split("\n")
    .filter(Boolean)
    .map((line) => {
      const [id = "", task = "", state = "", error = ""] = line.split("|");
      return { id, name: task, state, error };
    });
}

const TERMINAL = /^(Complete|Failed|Shutdown|Rejected|Orphaned|Remove)/;

/** Run the job, wait until every task ended, remove the service, merge the shards into `out`. */
export async function runSwarmShards(o: SwarmShardsOptions): Promise<MergeOutcome> {
  const { spec } = o;
  await mkdir(o.out, { recursive: true });
  const { shard_index: _i, run_id: _r, ...config } = shardConfig(o.config, 0, spec.shards);
  await writeFile(join(o.out, SHARDS_CONFIG_FILE), JSON.stringify(config, null, 2) + "\n");
  const created = await docker(swarmServiceArgs(spec), { env: o.env });
  if (created.exitCode !== 0) throw new BenchError("E_SHARD_FAILED", cliFailure("docker service create", created));
  const finished = (i: number): boolean => existsSync(join(shardDir(o.out, i), RESULTS_FILE));
  try {
    for (;;) {
      if (o.signal?.aborted) throw new BenchError("E_INTERRUPTED", `the Swarm job ${spec.name} was stopped`);
      const tasks = await tasksOf(spec.name, o.env);
      o.onPoll?.(tasks);
      const allFinished = Array.from({ length: spec.shards }, (_, i) => i).every(finished);
      const live = tasks.filter((t) => !TERMINAL.test(t.state));
      if (allFinished && live.length === 0) break;
      if (live.length === 0 && tasks.length > 0 && tasks.every((t) => TERMINAL.test(t.state)) && !allFinished) {
        const failed = tasks.filter((t) => t.state.startsWith("Failed") || t.error);
        if (failed.length > 0 && tasks.length >= spec.shards) {
          throw new BenchError(
            "E_SHARD_FAILED",
            `the Swarm job ${spec.name} ended with shards unfinished: ${failed.map((t) => `${t.name} ${t.state} ${t.error}`).join("; ")}`,
          );
        }
      }
      await new Promise<void>((r) => {
        const t = setTimeout(done, o.pollMs ?? 500);
        function done(): void {
          clearTimeout(t);
          o.signal?.removeEventListener("abort", done);
          r();
        }
        o.signal?.addEventListener("abort", done, { once: true });
      });
    }
  } finally {
    const rm = await docker(["service", "rm", spec.name], { env: o.env });
    if (rm.exitCode !== 0) o.logger.warn({ service: spec.name }, cliFailure("docker service rm", rm));
  }
  return mergeShards({
    dirs: Array.from({ length: spec.shards }, (_, i) => shardDir(o.out, i)),
    out: o.out,
    runId: spec.runId,
    logger: o.logger,
  });
}
