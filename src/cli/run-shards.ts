/**
 * `a2a-bench run … --shards N` (a config with `shards: N`): the run as N shard
 * processes on this host, merged into one run in `--out` (src/shards/local.ts).
 * To its caller (a person, the green agent reading `--events`) it looks like one
 * run: one `run_started` with the whole selection's total (sent when the first
 * shard started), every shard's `task_started` / `task_finished` /
 * `checkpoint_written` with the counts of the whole run, one `run_finished`
 * with the merged aggregate; exit 0 / 3 / 143 as a single run.
 */
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
import { runLocalShards } from "../shards/local.js";

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
  try {
    const merged = await runLocalShards({
      cli: cliEntry(),
      benchmark: c.def.name,
      config: (({ out: _o, ...config }) => config)(options),
      shards,
      out: options.out,
      resume: options.resume === true,
      env: c.io.env,
      logger: c.logger,
      signal: c.signal,
      requireFullIsolation: c.requireFullIsolation,
      onShardEvent,
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
