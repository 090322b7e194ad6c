/**
 * Read what a runner left in its work dir: which artifact files exist and the
 * results file, validated and converted to {@link RunResults} (run-results.ts).
 * Never throws: problems come back as data for the bundle.
 */
import { readFile, stat } from "node:fs/promises";
import { errorMessage } from "../util/errors.js";
import { toRunResults, type RunResults } from "./run-results.js";

export interface ArtifactPaths {
  results_path: string;
  run_metadata_path: string;
  events_path: string;
}

export interface RunFiles {
  /** Names (`results_path`, ...) of artifacts whose file does not exist. */
  missing: Array<keyof ArtifactPaths>;
  /** The results file, when readable and valid. */
  results: RunResults | null;
  /** Why the results file could not be used (missing is reported via `missing`). */
  resultsError: string | null;
}

async function exists(path: string): Promise<boolean> {
  try {
    return (await stat(path)).isFile();
  } catch {
    return false;
  }
}

/** Results files beyond this size are not parsed into the bundle (bytes): 64 MiB. */
export const MAX_RESULTS_BYTES = 64 * 1024 * 1024;

/** Which artifacts exist, and the results file as the bundle reads it. */
export async function readRunFiles(paths: ArtifactPaths): Promise<RunFiles> {
  const missing: Array<keyof ArtifactPaths> = [];
  for (const key of ["results_path", "run_metadata_path", "events_path"] as const) {
    if (!(await exists(paths[key]))) missing.push(key);
  }
  if (missing.includes("results_path")) return { missing, results: null, resultsError: null };
  let parsed: unknown;
  try {
    const size = (await stat(paths.results_path)).size;
    if (size > MAX_RESULTS_BYTES)
      return { missing, results: null, resultsError: `results file too large to read (${size} bytes)` };
    parsed = JSON.parse(await readFile(paths.results_path, "utf8"));
  } catch (err) {
    return { missing, results: null, resultsError: `results file unreadable: ${errorMessage(err)}` };
  }
  const read = toRunResults(parsed);
  return "problem" in read
    ? { missing, results: null, resultsError: read.problem }
    : { missing, results: read.results, resultsError: null };
}
