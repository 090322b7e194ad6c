/**
 * An assessment split into N shards run as N runner processes on this host,
 * then merged (merge.ts): what `a2a-bench run … --shards N` does, and so what
 * the green agent runs for a config with `shards: N`. Each shard is a plain
 * `a2a-bench run … --shard-index i --num-shards N --out <out>/shard-<i>`; this
 * module only starts them, re-starts a shard that died (with `--resume`: its
 * finished rows are kept, each verified by its checksum, and only its
 * unfinished items run again), and merges when every shard finished. Who
 * judged which row is in each shard's workers.jsonl (worker-log.ts): every
 * start is a worker of its own (host and process id), engine `local`.
 *
 * A shard that ends with status error (exit 3) is not re-run: that is a
 * verdict of the run (infrastructure failed there), and the merged run says
 * so. A shard that died (a signal, any other exit) is re-run, at most
 * `maxStarts` starts in all; after that the sharded run fails naming it.
 */
import { mkdir } from "node:fs/promises";
import { existsSync } from "node:fs";
import { join } from "node:path";
import type { Logger } from "../util/logger.js";
import { BenchError } from "../util/errors.js";
import { writeJsonAtomic } from "../util/atomic-write.js";
import { startChild, type ChildHandle } from "../process/index.js";
import { CHECKPOINT_FILE } from "../runner/checkpoint.js";
import { ENGINE_ENV } from "../runner/worker-log.js";
import { EVENT_PREFIX } from "../runner/protocol.js";
import { mergeShards, type MergeOutcome } from "./merge.js";

/** Starts of one shard at most (the first and two re-runs), by default. */
export const DEFAULT_MAX_STARTS = 3;
/** Exit code of a runner whose run ended with status error (a verdict: not re-run). */
const EXIT_STATUS_ERROR = 3;

export interface LocalShardsOptions {
  /** The CLI entry (`dist/cli.js`) the shards run. */
  cli: string;
  benchmark: string;
  /** The resolved config of the whole assessment (as results.json records it). */
  config: Record<string, unknown>;
  shards: number;
  /** Output directory of the merged run; the shards run in `<out>/shard-<i>`. */
  out: string;
  /** Pass `--require-full-isolation` to every shard (the green agent's runs): a shard below it ends with status error. */
  requireFullIsolation?: boolean;
  /** Continue the shards' runs (their checkpoints) instead of starting them afresh. */
  resume: boolean;
  env: NodeJS.ProcessEnv;
  logger: Logger;
  /** Aborting stops every shard (SIGTERM; their checkpoints are written) and rejects with E_INTERRUPTED. */
  signal?: AbortSignal;
  maxStarts?: number;
  /** Each event a shard's runner prints (`A2A_EVENT:` lines), with the shard's index. */
  onShardEvent?: (shard: number, event: Record<string, unknown>) => void;
}

/** Where shard `i` of a sharded run in `out` runs. */
export function shardDir(out: string, i: number): string {
  return join(out, `shard-${i}`);
}

/** The config shard `i` runs with: the assessment's, one shard of N, its own run id. */
export function shardConfig(config: Record<string, unknown>, i: number, shards: number): Record<string, unknown> {
  const { shards: _s, shard_engine: _e, resume: _r, ...rest } = config;
  return { ...rest, shard_index: i, num_shards: shards, run_id: `${String(config["run_id"])}-shard-${i}` };
}

/** One start of a shard's runner (its own process group, with a lifeline): resolves to how it ended. */
function startShard(
  o: LocalShardsOptions,
  i: number,
  start: number,
  configFile: string,
  resume: boolean,
): { child: ChildHandle; done: Promise<{ code: number | null; signal: NodeJS.Signals | null }> } {
  const args = [o.cli, "run", o.benchmark, "--config-file", configFile, "--out", shardDir(o.out, i), "--events"];
  args.push(resume ? "--resume" : "--force");
  if (o.requireFullIsolation) args.push("--require-full-isolation");
  const child = startChild({
    file: process.execPath,
    args,
    env: { ...o.env, [ENGINE_ENV]: "local" },
    lifeline: true,
    stdout: {
      lines: (line) => {
        if (!line.startsWith(EVENT_PREFIX)) return;
        try {
          o.onShardEvent?.(i, JSON.parse(line.slice(EVENT_PREFIX.length)) as Record<string, unknown>);
        } catch {
          // not an event line
        }
      },
    },
    stderr: { lines: (line) => void (line.trim() !== "" && o.logger.debug({ shard: i, start }, line)) },
  });
  return { child, done: child.done.then(({ exitCode, signal }) => ({ code: exitCode, signal })) };
}

/** Run shard `i` to its end, re-running it with `--resume` after a death; throws when it never finishes. */
async function runShard(o: LocalShardsOptions, i: number, running: Set<ChildHandle>): Promise<void> {
  const maxStarts = o.maxStarts ?? DEFAULT_MAX_STARTS;
  const configFile = join(o.out, `shard-${i}.config.json`);
  await writeJsonAtomic(configFile, shardConfig(o.config, i, o.shards));
  let resume = o.resume && existsSync(join(shardDir(o.out, i), CHECKPOINT_FILE));
  for (let start = 1; start <= maxStarts; start++) {
    if (o.signal?.aborted) throw interrupted();
    const { child, done } = startShard(o, i, start, configFile, resume);
    running.add(child);
    const { code, signal } = await done;
    running.delete(child);
    if (o.signal?.aborted) throw interrupted();
    if (code === 0 || code === EXIT_STATUS_ERROR) return;
    o.logger.warn(
      { shard: i, start, exit_code: code, signal },
      `shard ${i} died (${signal ?? `exit ${String(code)}`}); its unfinished items run again`,
    );
    // A shard that died before its checkpoint existed starts afresh; else it continues from it.
    resume = existsSync(join(shardDir(o.out, i), CHECKPOINT_FILE));
  }
  throw new BenchError(
    "E_SHARD_FAILED",
    `shard ${i} did not finish in ${maxStarts} start(s); see ${shardDir(o.out, i)}`,
  );
}

const interrupted = (): BenchError => new BenchError("E_INTERRUPTED", "the sharded run was stopped");

/** Run the N shards as local processes, re-run the dead ones, then merge them into `out` (see the module note). */
export async function runLocalShards(o: LocalShardsOptions): Promise<MergeOutcome> {
  await mkdir(o.out, { recursive: true });
  const running = new Set<ChildHandle>();
  const stop = (): void => {
    for (const child of running) void child.terminate("cancel");
  };
  o.signal?.addEventListener("abort", stop, { once: true });
  try {
    const ends = await Promise.allSettled(Array.from({ length: o.shards }, (_, i) => runShard(o, i, running)));
    const failed = ends.find((e): e is PromiseRejectedResult => e.status === "rejected");
    if (failed) throw failed.reason;
  } finally {
    o.signal?.removeEventListener("abort", stop);
    stop();
  }
  return mergeShards({
    dirs: Array.from({ length: o.shards }, (_, i) => shardDir(o.out, i)),
    out: o.out,
    runId: String(o.config["run_id"]),
    logger: o.logger,
  });
}
