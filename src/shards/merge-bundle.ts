/**
 * The evaluation bundle of a merged run (`evaluation_bundle.json` beside its
 * results.json), built and validated as the green agent builds one for any
 * run (../bundle/build.ts): the merged run stands for the runner process that
 * a single run would have been: exit 0 when its status is `ok`, 3 (an error of
 * ours) when a shard ended in error, its timings the shards' first start and
 * last end. Refuses (MergeError E_MERGE_BUNDLE) a bundle the schema rejects.
 */
import { readFile } from "node:fs/promises";
import { join } from "node:path";
import { buildBundle, type EvaluationBundle } from "../bundle/build.js";
import { readRunFiles, type ArtifactPaths } from "../bundle/run-files.js";
import { validateBundle } from "../bundle/validate.js";
import type { RunnerOutcome } from "../process/outcome.js";
import { EXIT_INFRASTRUCTURE } from "../runner/run-benchmark.js";
import { writeJsonAtomic } from "../util/atomic-write.js";
import { MergeError, type MergeOutcome } from "./merge.js";

/** The bundle's file name in the merged run's directory. */
export const MERGED_BUNDLE_FILE = "evaluation_bundle.json";

/** Build, validate and write the merged run's bundle; returns it and its path. */
export async function writeMergedBundle(
  merged: MergeOutcome,
  participants: Record<string, string>,
): Promise<{ bundle: EvaluationBundle; path: string }> {
  const { results, paths } = merged;
  const artifacts: ArtifactPaths = {
    results_path: paths.results,
    run_metadata_path: paths.run_metadata,
    events_path: paths.events,
  };
  const files = await readRunFiles(artifacts);
  const meta = JSON.parse(await readFile(paths.run_metadata, "utf8")) as { timings?: Record<string, number> };
  const started = (meta.timings?.["started_at_unix_seconds"] ?? 0) * 1000;
  const finished = (meta.timings?.["finished_at_unix_seconds"] ?? 0) * 1000;
  const outcome: RunnerOutcome = {
    exitCode: results.status === "ok" ? 0 : EXIT_INFRASTRUCTURE,
    signal: null,
    terminationReason: null,
    timedOut: false,
    isCanceled: false,
    isForcefullyTerminated: false,
    spawnError: null,
    startedAtMs: started,
    finishedAtMs: finished,
    durationMs: Math.max(0, finished - started),
    outputTail: [],
  };
  const bundle = buildBundle({
    benchmark: results.benchmark,
    runId: results.run_id,
    config: results.config,
    participants,
    outcome,
    artifacts,
    files,
  });
  const problems = validateBundle(bundle);
  if (problems.length > 0)
    throw new MergeError("E_MERGE_BUNDLE", `the merged run's evaluation bundle is not valid: ${problems.join("; ")}`);
  const path = join(paths.out, MERGED_BUNDLE_FILE);
  await writeJsonAtomic(path, bundle);
  return { bundle, path };
}
