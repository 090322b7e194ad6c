/**
 * Export the episode trajectories of a run (or one trajectory file) as ATIF documents, each written whole
 * (a temporary file renamed into place) beside its trajectory or under an output directory that mirrors the run.
 */
import { lstat, mkdir, readdir, rename, writeFile } from "node:fs/promises";
import { basename, dirname, join, relative } from "node:path";
import { readTrajectory } from "../interactive/trajectory.js";
import { BenchError } from "../util/errors.js";
import { trajectoryToAtif } from "./atif.js";
import { atifProblems } from "./atif-check.js";

/** The file name episodes write their trajectory under. */
export const TRAJECTORY_FILE = "trajectory.jsonl";
/** The name the ATIF document of a trajectory gets. */
export const ATIF_FILE = "trajectory.atif.json";
/** Directory depth searched below a run directory. */
const MAX_DEPTH = 8;

export interface ExportOptions {
  /** A run directory (every trajectory below it) or one trajectory file. */
  path: string;
  /** Where documents go (mirroring the run's layout); default beside each trajectory. */
  out?: string | undefined;
  agentName: string;
  agentVersion: string;
}

export interface ExportedTrajectory {
  /** The trajectory, relative to the path given (its name when a file was given). */
  source: string;
  written: string;
  steps: number;
  /** The trajectory's last line was torn (a crash mid-write) and left out. */
  tornLastLine: boolean;
}

/** Trajectory files below `dir` (symbolic links are not followed), sorted. */
async function findTrajectories(dir: string, depth = 0): Promise<string[]> {
  const found: string[] = [];
  for (const entry of (await readdir(dir, { withFileTypes: true })).sort((a, b) => a.name.localeCompare(b.name))) {
    const path = join(dir, entry.name);
    if (entry.isFile() && entry.name === TRAJECTORY_FILE) found.push(path);
    else if (entry.isDirectory() && depth < MAX_DEPTH) found.push(...(await findTrajectories(path, depth + 1)));
  }
  return found;
}

async function writeWhole(path: string, text: string): Promise<void> {
  await mkdir(dirname(path), { recursive: true });
  const tmp = `${path}.${process.pid}.tmp`;
  await writeFile(tmp, text);
  await rename(tmp, path);
}

/** Export every trajectory found; throws E_EXPORT when none is found or a document fails its own check. */
export async function exportAtif(options: ExportOptions): Promise<ExportedTrajectory[]> {
  const st = await lstat(options.path).catch(() => null);
  if (st === null) throw new BenchError("E_EXPORT", `${options.path}: no such file or directory`);
  const root = st.isDirectory() ? options.path : dirname(options.path);
  const files = st.isDirectory() ? await findTrajectories(options.path) : [options.path];
  if (files.length === 0)
    throw new BenchError(
      "E_EXPORT",
      `${options.path}: no ${TRAJECTORY_FILE} below it (only interactive runs write trajectories)`,
    );
  const exported: ExportedTrajectory[] = [];
  for (const file of files) {
    const source = st.isDirectory() ? relative(root, file) : basename(file);
    const { lines, tornLastLine } = await readTrajectory(file);
    const doc = trajectoryToAtif(lines, { agentName: options.agentName, agentVersion: options.agentVersion, source });
    const problems = atifProblems(doc);
    if (problems.length > 0)
      throw new BenchError("E_EXPORT", `${file}: the ATIF document fails its check: ${problems.join("; ")}`);
    const written =
      options.out === undefined ? join(dirname(file), ATIF_FILE) : join(options.out, dirname(source), ATIF_FILE);
    await writeWhole(written, `${JSON.stringify(doc, null, 2)}\n`);
    exported.push({ source, written, steps: doc.steps.length, tornLastLine });
  }
  return exported;
}
