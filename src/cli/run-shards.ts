/**
 * `a2a-bench run … --shards N` (a config with `shards: N`): the run as N shard
 * processes on this host, merged into one run in `--out` (src/shards/local.ts).
 * To its caller (a person, the green agent reading `--events`) it looks like one
 * run: one `run_started` with the whole selection's total (sent when the first
 * shard started), every shard's `task_started` / `task_finished` /
 * `checkpoint_written` with the counts of the whole run, one `run_finished`
 * with the merged aggregate; exit 0 / 3 / 143 as a single run.
 */
import { mkdir } from "node:fs/promises";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import type { CliIo } from "./types.js";
import type { Logger } from "../util/logger.js";
import type { RunOptions } from "../runner/options.js";
import type { ProgressReporter } from "../runner/progress.js";
import type { RunnerEvent } from "../runner/protocol.js";
import type { BenchmarkDefinition, BenchmarkItem } from "../runner/benchmark.js";
import { BenchError, UsageError } from "../util/errors.js";
import { sampleItems } from "../runner/selection.js";
import { EXIT_INFRASTRUCTURE, EXIT_INTERRUPTED } from "../runner/run-benchmark.js";
import { runLocalShards, shardConfig } from "../shards/local.js";
import type { MergeOutcome } from "../shards/merge.js";
import { runSwarmShards, SHARDS_CONFIG_FILE } from "../shards/swarm.js";
import { indexedJobManifest } from "../shards/kubernetes-job.js";
import { checkSwarmManager, indexedJobFromEnv, swarmJobFromEnv } from "../shards/shard-engines.js";
import { writeJsonAtomic } from "../util/atomic-write.js";

export interface ShardedRunContext {
  def: BenchmarkDefinition<BenchmarkItem>;
  options: RunOptions;
  io: CliIo;
  logger: Logger;
  progress: ProgressReporter;
  signal: AbortSignal;
  requireFullIsolation: boolean;
}

/** The CLI entry the shards run: this very file's bundle (dist/cli.js). */
function cliEntry(): string {
  return process.argv[1] ?? fileURLToPath(new URL("../cli.js", import.meta.url));
}

/** Run the sharded run; resolves to the exit code and the merged aggregate (null when it did not merge). */
export async function runSharded(c: ShardedRunContext): Promise<{ exitCode: number; aggregate: unknown }> {
  const { options } = c;
  const shards = options.shards ?? 1;
  if (options.num_shards > 1)
    throw new UsageError(
      `--shards ${shards} splits the run itself: it cannot be one of --num-shards ${options.num_shards} shards too`,
    );
  const total = sampleItems(await c.def.loadItems(options, c.logger), options.seed, options.samples).length;
  let started = false;
  let done = 0;
  let passed = 0;
  const emit = (event: RunnerEvent): void => c.progress.onEvent(event);
  const onShardEvent = (shard: number, event: Record<string, unknown>): void => {
    switch (event["event"]) {
      case "run_started":
        if (started) return;
        started = true;
        emit({ ...event, event: "run_started", run_id: options.run_id, benchmark: c.def.name, total, shards });
        return;
      case "task_started":
        emit({ ...(event as RunnerEvent & { task_id: string; i: number }), total, shard });
        return;
      case "task_finished":
        done++;
        if (event["passed"] === true) passed++;
        emit({
          ...(event as RunnerEvent & { task_id: string; i: number; status: string; passed: boolean }),
          done,
          total,
          passed_so_far: passed,
          shard,
        });
        return;
      case "checkpoint_written":
        emit({ ...event, event: "checkpoint_written", shard });
        return;
      default:
        return;
    }
  };
  const config = (({ out: _o, ...rest }) => rest)(options) as unknown as Record<string, unknown>;
  if (options.shard_engine === "kubernetes") return writeIndexedJob(c, config, shards);
  try {
    const merged = await runOnEngine(c, config, shards, onShardEvent, () => {
      emit({ event: "run_started", run_id: options.run_id, benchmark: c.def.name, total, shards });
      started = true;
    });
    const { results, paths } = merged;
    emit({
      event: "run_finished",
      status: results.status,
      error: results.error,
      results_path: paths.results,
      run_metadata_path: paths.run_metadata,
      events_path: paths.events,
      aggregate: results.aggregate,
    });
    return { exitCode: results.status === "ok" ? 0 : EXIT_INFRASTRUCTURE, aggregate: results.aggregate };
  } catch (err) {
    if (err instanceof BenchError && err.code === "E_INTERRUPTED")
      return { exitCode: EXIT_INTERRUPTED, aggregate: null };
    throw err;
  }
}

/** The manifest of the Indexed Job as the file kubectl applies. */
export const INDEXED_JOB_FILE = "indexed-job.json";

/**
 * `shard_engine: kubernetes`: the Indexed Job's manifest and the shards' config written to `--out`, and the
 * kubectl steps printed; nothing is applied (exit 0, no run: the merge comes after the Job completes).
 */
async function writeIndexedJob(
  c: ShardedRunContext,
  config: Record<string, unknown>,
  shards: number,
): Promise<{ exitCode: number; aggregate: unknown }> {
  const { options } = c;
  const spec = indexedJobFromEnv({ runId: options.run_id, benchmark: c.def.name, shards }, c.io.env);
  const { shard_index: _i, run_id: _r, ...shardsConfig } = shardConfig(config, 0, shards);
  await mkdir(options.out, { recursive: true });
  const configPath = join(options.out, SHARDS_CONFIG_FILE);
  const jobPath = join(options.out, INDEXED_JOB_FILE);
  await writeJsonAtomic(configPath, shardsConfig);
  await writeJsonAtomic(jobPath, indexedJobManifest(spec));
  const ns = spec.namespace ? ` -n ${spec.namespace}` : "";
  const dirs = Array.from({ length: shards }, (_, i) => `/results/${options.run_id}/shard-${i}`).join(" ");
  c.io.stdout.write(
    [
      `wrote ${jobPath} (an Indexed Job of ${shards} shards) and ${configPath}; nothing was applied. To run it:`,
      `  kubectl${ns} create configmap ${spec.configMap} --from-file=config.json=${configPath}`,
      `  kubectl${ns} apply -f ${jobPath}`,
      `  kubectl${ns} wait --for=condition=complete --timeout=24h job/${spec.name}`,
      `then, in a pod that mounts the claim ${spec.claim} at /results:`,
      `  a2a-bench merge ${dirs} --out /results/${options.run_id}/merged`,
      "",
    ].join("\n"),
  );
  return { exitCode: 0, aggregate: null };
}

/** The shards run on the chosen engine (local processes or a Swarm job), merged. */
async function runOnEngine(
  c: ShardedRunContext,
  config: Record<string, unknown>,
  shards: number,
  onShardEvent: (shard: number, event: Record<string, unknown>) => void,
  onStart: () => void,
): Promise<MergeOutcome> {
  const { options } = c;
  if (options.shard_engine === "swarm") {
    const spec = swarmJobFromEnv({ runId: options.run_id, benchmark: c.def.name, shards, out: options.out }, c.io.env);
    await checkSwarmManager(c.io.env);
    // The tasks' own events stay in their shards' event files: the caller sees the run start and end.
    onStart();
    return runSwarmShards({ spec, config, out: options.out, env: c.io.env, logger: c.logger, signal: c.signal });
  }
  return runLocalShards({
    cli: cliEntry(),
    benchmark: c.def.name,
    config,
    shards,
    out: options.out,
    resume: options.resume === true,
    env: c.io.env,
    logger: c.logger,
    signal: c.signal,
    requireFullIsolation: c.requireFullIsolation,
    onShardEvent,
  });
}
