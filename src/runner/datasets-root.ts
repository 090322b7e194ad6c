import { join, resolve } from "node:path";
import { packageRoot } from "../util/package-root.js";

/**
 * Root of the shared, never-committed datasets: `$A2A_BENCH_DATASETS`, by
 * default `../shared/datasets` relative to the package root.
 */
export function datasetsRoot(env: NodeJS.ProcessEnv = process.env): string {
  return resolve(env["A2A_BENCH_DATASETS"] ?? join(packageRoot, "..", "shared", "datasets"));
}
