/**
 * Read what a runner left in its work dir: which artifact files exist and the
 * parsed results JSON. Never throws: problems come back as data for the bundle.
 */
import { readFile, stat } from "node:fs/promises";
import { errorMessage } from "../util/errors.js";

export interface ArtifactPaths {
  results_path: string;
  run_metadata_path: string;
  events_path: string;
}

export interface RunFiles {
  /** Names (`results_path`, ...) of artifacts whose file does not exist. */
  missing: Array<keyof ArtifactPaths>;
  /** Parsed results JSON, when readable. */
  results: unknown;
  /** Why results JSON could not be used (missing is reported via `missing`). */
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

export async function readRunFiles(paths: ArtifactPaths): Promise<RunFiles> {
  const missing: Array<keyof ArtifactPaths> = [];
  for (const key of ["results_path", "run_metadata_path", "events_path"] as const) {
    if (!(await exists(paths[key]))) missing.push(key);
  }
  let results: unknown = undefined;
  let resultsError: string | null = null;
  if (!missing.includes("results_path")) {
    try {
      const size = (await stat(paths.results_path)).size;
      if (size > MAX_RESULTS_BYTES) resultsError = `results file too large to read (${size} bytes)`;
      else results = JSON.parse(await readFile(paths.results_path, "utf8"));
    } catch (err) {
      resultsError = `results file unreadable: ${errorMessage(err)}`;
    }
  }
  return { missing, results, resultsError };
}
