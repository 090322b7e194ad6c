/**
 * Where HumanEval problems come from: `sample` (embedded, written for this
 * project), `humaneval-full` (the official 164 at
 * `$A2A_BENCH_DATASETS/humaneval/HumanEval.jsonl.gz`), or a path to a
 * `.jsonl` / `.jsonl.gz` file (gzip recognised by its magic bytes).
 *
 * No download: fetching the official file needs the network, which this
 * project's machines do not have, so an absent file is a clear error naming
 * where to put it rather than an untested download path.
 */
import { createHash } from "node:crypto";
import { readFile } from "node:fs/promises";
import { join, resolve } from "node:path";
import { BenchError, InputFileError } from "../../util/errors.js";
import { parseJsonlLines, textOfMaybeGzip } from "../../util/jsonl.js";
import { datasetsRoot } from "../../runner/datasets-root.js";
import type { HumanEvalProblem } from "./problem.js";
import { SAMPLE_PROBLEMS } from "./sample-dataset.js";

export const SAMPLE_DATASET = "sample";
export const FULL_DATASET = "humaneval-full";
const REQUIRED_FIELDS = ["task_id", "prompt", "entry_point", "canonical_solution", "test"] as const;

/** A loaded dataset and how to identify it (for checkpoints and run metadata). */
export interface LoadedDataset {
  /** `sample` or the absolute path read. */
  path: string;
  /** sha256 of the file's bytes (sample: of its JSONL serialisation). */
  sha256: string;
  problems: HumanEvalProblem[];
}

/** Path of the official file under the datasets root. */
export function fullDatasetPath(env: NodeJS.ProcessEnv = process.env): string {
  return join(datasetsRoot(env), "humaneval", "HumanEval.jsonl.gz");
}

function sha256(data: string | Uint8Array): string {
  return createHash("sha256").update(data).digest("hex");
}

/** Parse HumanEval JSONL text; every line must carry the five fields as strings. */
export function parseHumanEvalJsonl(text: string, source: string): HumanEvalProblem[] {
  const problems: HumanEvalProblem[] = [];
  const seen = new Set<string>();
  for (const { line, value } of parseJsonlLines(text, source)) {
    const obj = value as Record<string, unknown>;
    const missing = REQUIRED_FIELDS.filter((f) => typeof obj?.[f] !== "string");
    if (missing.length > 0)
      throw new InputFileError(source, `line ${line} lacks string field(s) ${missing.join(", ")}`);
    const problem = Object.fromEntries(
      REQUIRED_FIELDS.map((f) => [f, obj[f] as string]),
    ) as unknown as HumanEvalProblem;
    if (seen.has(problem.task_id))
      throw new InputFileError(source, `line ${line}: duplicate task_id ${problem.task_id}`);
    seen.add(problem.task_id);
    problems.push(problem);
  }
  if (problems.length === 0) throw new InputFileError(source, "no problems in file");
  return problems;
}

/** The embedded sample set as JSONL (what its sha256 is computed over). */
export function sampleJsonl(): string {
  return SAMPLE_PROBLEMS.map((p) => JSON.stringify(p)).join("\n") + "\n";
}

/** Load the dataset named by `dataset` (see module note). */
export async function loadHumanEval(dataset: string, env: NodeJS.ProcessEnv = process.env): Promise<LoadedDataset> {
  if (dataset === SAMPLE_DATASET) {
    return { path: SAMPLE_DATASET, sha256: sha256(sampleJsonl()), problems: SAMPLE_PROBLEMS.map((p) => ({ ...p })) };
  }
  const path = dataset === FULL_DATASET ? fullDatasetPath(env) : resolve(dataset);
  let bytes: Buffer;
  try {
    bytes = await readFile(path);
  } catch (err) {
    if (dataset === FULL_DATASET) {
      throw new BenchError(
        "E_DATASET_MISSING",
        `humaneval-full needs the official HumanEval.jsonl.gz at ${path} (set A2A_BENCH_DATASETS to the directory holding humaneval/); it is not downloaded automatically`,
        { cause: err },
      );
    }
    throw new InputFileError(path, `cannot read dataset (${(err as Error).message})`, { cause: err });
  }
  return { path, sha256: sha256(bytes), problems: parseHumanEvalJsonl(textOfMaybeGzip(bytes, path), path) };
}
