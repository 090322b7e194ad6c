/** Paths the bench uses: repo root, built dist/, the CLI entry, datasets root. */
import { dirname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";

export const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), "..", "..");
export const DIST = join(ROOT, "dist");
export const CLI = join(DIST, "cli.js");
export const BENCH = join(ROOT, "bench");
/** Same default as the runner: $A2A_BENCH_DATASETS, else ../shared/datasets next to the repo. */
export const DATASETS = resolve(process.env.A2A_BENCH_DATASETS ?? join(ROOT, "..", "shared", "datasets"));
process.env.A2A_BENCH_DATASETS = DATASETS;
