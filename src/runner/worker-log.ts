/**
 * Which worker judged which rows of a run: `workers.jsonl` in the run's
 * directory, one line per start of the runner on it (a fresh start, then one
 * per `--resume`), `{worker, engine, first_row, started_at_unix_seconds}`.
 * `first_row` is how many rows the checkpoint held when that start began, so
 * row k of the checkpoint (completion order) was judged by the last start
 * whose `first_row` ≤ k. Why a file of its own: the checkpoint's rows are
 * checksummed as the benchmark made them and never rewritten; who ran them is
 * about the process, not the item, and is only needed when shards are merged
 * (src/shards/merge.ts).
 *
 * The worker and the engine are given by whoever starts the runner (env
 * `A2A_BENCH_WORKER`, `A2A_BENCH_ENGINE`: the shard launchers set them, a
 * Swarm task or a Kubernetes pod names itself); by default the host and the
 * process id, engine `local`.
 */
import { appendFile, readFile, writeFile } from "node:fs/promises";
import { hostname } from "node:os";
import { join } from "node:path";

export const WORKERS_FILE = "workers.jsonl";
export const WORKER_ENV = "A2A_BENCH_WORKER";
export const ENGINE_ENV = "A2A_BENCH_ENGINE";

/** Who runs a run: a worker name and the engine that scheduled it. */
export interface WorkerIdentity {
  worker: string;
  engine: string;
}

/** One start of the runner on a run directory. */
export interface WorkerStart extends WorkerIdentity {
  /** Rows in the checkpoint when this start began (rows from here on are its own). */
  first_row: number;
  started_at_unix_seconds: number;
}

/** The worker identity from the environment (see the module note). */
export function workerIdentity(env: NodeJS.ProcessEnv, pid = process.pid): WorkerIdentity {
  const worker = env[WORKER_ENV]?.trim();
  const engine = env[ENGINE_ENV]?.trim();
  return { worker: worker || `${hostname()}:${pid}`, engine: engine || "local" };
}

/** Record this start in `<out>/workers.jsonl`: appended on a resumed run, the file started afresh otherwise. */
export async function recordWorkerStart(out: string, start: WorkerStart, resumed: boolean): Promise<void> {
  await (resumed ? appendFile : writeFile)(join(out, WORKERS_FILE), JSON.stringify(start) + "\n");
}

/** The starts recorded in `<dir>/workers.jsonl` (none when the file is absent); malformed lines are skipped. */
export async function readWorkerStarts(dir: string): Promise<WorkerStart[]> {
  let text: string;
  try {
    text = await readFile(join(dir, WORKERS_FILE), "utf8");
  } catch {
    return [];
  }
  const starts: WorkerStart[] = [];
  for (const line of text.split("\n")) {
    if (line.trim() === "") continue;
    try {
      const v = JSON.parse(line) as Partial<WorkerStart>;
      if (typeof v.worker === "string" && typeof v.engine === "string" && typeof v.first_row === "number")
        starts.push({
          worker: v.worker,
          engine: v.engine,
          first_row: v.first_row,
          started_at_unix_seconds: v.started_at_unix_seconds ?? 0,
        });
    } catch {
      // a torn last line (the process died mid-append): that start judged nothing it could record
    }
  }
  return starts;
}

/** The start that judged row `index` of the checkpoint (null when none is recorded). */
export function starterOfRow(starts: readonly WorkerStart[], index: number): WorkerStart | null {
  let found: WorkerStart | null = null;
  for (const s of starts) if (s.first_row <= index) found = s;
  return found;
}
