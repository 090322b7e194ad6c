/**
 * Host paths a run's sandbox must never show a job, even should they lie
 * inside what the sandbox shows of the host (src/sandbox/local/host-view.ts):
 * the datasets (HumanEval's canonical solutions), the run's own output dir
 * (results, checkpoints, other items' work dirs), the checkout, the caches
 * (SWE-bench's gold patches) and the home directory. A dataset given as a
 * file path is hidden too.
 */
import { existsSync } from "node:fs";
import { homedir } from "node:os";
import { join, resolve } from "node:path";
import type { RunOptions } from "./options.js";
import { datasetsRoot } from "./datasets-root.js";
import { packageRoot } from "../util/package-root.js";

/** The cache root the benchmarks use (swebench/sample-dataset.ts, sparc/packages/cache.ts): the same rule. */
function cacheRoot(env: NodeJS.ProcessEnv): string {
  return resolve(env["A2A_BENCH_CACHE_DIR"] ?? join(env["XDG_CACHE_HOME"] || join(homedir(), ".cache"), "a2a-bench"));
}

/** The hidden paths of a run with `options` (absolute; ones that do not exist are dropped by the sandbox). */
export function sandboxHiddenPaths(options: Pick<RunOptions, "out" | "dataset">, env = process.env): string[] {
  const paths = [datasetsRoot(env), resolve(options.out), packageRoot, cacheRoot(env), homedir()];
  const dataset = options.dataset;
  if (typeof dataset === "string" && dataset.includes("/") && existsSync(dataset)) paths.push(resolve(dataset));
  return [...new Set(paths)];
}
