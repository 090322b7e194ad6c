/**
 * HumanEval interactive (`interaction: "interactive"`): one sample is one
 * episode (src/interactive/, `terminal-bench-shell-v1`) in its own fresh
 * environment, and its ANSWER is graded afterwards by the trusted checker on
 * the host, exactly as a single-shot completion is (definition.ts). Nothing
 * the participant does in the environment is ever graded there.
 *
 * The environment holds the task and nothing that would answer it: a
 * project-built Debian image with python3 (never the package, whose embedded
 * datasets hold the tests and canonical solutions), and in {@link WORKDIR}
 * `solution.py` holding the prompt (signature and docstring) and `TASK.md`
 * holding the instruction. The tests, the canonical solution and the checker
 * never enter it.
 *
 * The answer (decided here, documented in docs/benchmarks/humaneval.md):
 * 1. the `final` output, when it holds code (a fenced block, or a
 *    definition of the entry point): the participant's explicit submission
 *    wins, as RDI's greens and a `submit` tool take it;
 * 2. otherwise `solution.py` as the environment holds it after the episode
 *    (read with readFile, bounded by the backend's read cap), for an agent
 *    that works in the file and answers `final` with prose.
 * Either text goes through the single-shot extraction (extract-code.ts); a
 * file that still starts with the prompt gives what follows it (extractFromFile).
 *
 * Only `final` submits. Any other ending the participant caused (turn or time
 * limit, format errors, its own failure) is a sample with no answer, scored
 * 0; `environment_error` and `canceled` are ours, never a score.
 */
import { join, relative } from "node:path";
import type { EvaluateContext } from "../../runner/benchmark.js";
import { maxReplyBytes } from "../../a2a/client/reply-limit.js";
import { createA2ATurnSender } from "../../interactive/a2a-sender.js";
import { runEpisode, type CommandEvent } from "../../interactive/episode.js";
import type { EpisodeRecord } from "../../interactive/episode-record.js";
import { shellEnvironment } from "../../interactive/shell-environment.js";
import { trajectoryFile } from "../../interactive/trajectory.js";
import { episodeLimitsOf } from "../../request-config/interaction-rules.js";
import { environmentsOf, type Environment, type EnvironmentProvider } from "../../sandbox/environment.js";
import { SandboxCapabilityError } from "../../sandbox/capabilities.js";
import type { Sandbox } from "../../sandbox/types.js";
import { BenchError, errorMessage } from "../../util/errors.js";
import { extractCode, findFencedBlocks, type ExtractedCode } from "../scoring/extract-code.js";
import type { HumanEvalProblem } from "./problem.js";

/** Name under which HumanEval asks for sandbox capabilities. */
export const CALLER = "humaneval";
/**
 * The image of every HumanEval environment: the project's Debian base image (python3, bash, coreutils;
 * built offline by `scripts/container-engine.sh base-image`, and the docker backend's default job image).
 * It never holds the package: the package carries the datasets' tests and canonical solutions.
 */
export const HUMANEVAL_IMAGE = "a2a-bench/debian-base:bookworm";
/** The working directory of every command, where the task's files are. */
export const WORKDIR = "/workspace";
/** The file holding the prompt, which the participant completes. */
export const SOLUTION_FILE = "solution.py";
/** The file holding the instruction (the same text as the task message's). */
export const TASK_FILE = "TASK.md";
/** Largest solution file read back, bytes (a larger one is no answer: the participant's doing). */
export const MAX_SOLUTION_BYTES = 1024 * 1024;

/** The task text of a problem (the task message's `instruction`, and TASK.md). */
export function episodeInstruction(problem: HumanEvalProblem): string {
  return [
    `Complete the Python function \`${problem.entry_point}\` whose signature and docstring are in`,
    `${WORKDIR}/${SOLUTION_FILE} (the working directory of every command; python3 is installed).`,
    "Each command runs in a fresh `bash -lc` (cd and export do not carry over; files do). There is no network,",
    "and the unit tests are not here: they run elsewhere, on your answer only.",
    "When you are done, reply final. Your answer is the final output when it holds the code (the whole",
    `function in one \`\`\`python block), else ${SOLUTION_FILE} as you leave it. You may import from the standard library.`,
    "",
    "```python",
    problem.prompt.trimEnd(),
    "```",
  ].join("\n");
}

/** Where the answer came from. */
export type AnswerSource = "final" | "file";

/** What one sample's episode produced for grading. */
export interface SampleEpisode {
  record: EpisodeRecord;
  /** The trajectory's path relative to the run's out dir. */
  trajectory: string;
  /** The answer's code (null: no answer, see `noAnswer` / `infraError`). */
  extracted: ExtractedCode | null;
  answerSource: AnswerSource | null;
  /** Why there is no answer, the participant's doing (scored 0). */
  noAnswer?: string;
  /** Why there is no answer, ours (environment_error, canceled, a backend failure): never a score. */
  infraError?: string;
}

/** The sandbox's environments, or SandboxCapabilityError naming the fix (the run stops: our configuration). */
export function humanEvalEnvironments(sandbox: Sandbox): EnvironmentProvider {
  if (!sandbox.capabilities.has("environments"))
    throw new SandboxCapabilityError(
      sandbox.backend,
      "environments",
      CALLER,
      "interactive humaneval runs each sample in its own environment: use a sandbox backend with the " +
        "`environments` capability (sandbox: docker, sandbox: e2b, or sandbox: local at bwrap isolation), or interaction: single_shot",
    );
  return environmentsOf(sandbox, CALLER);
}

/** Whether a final output is a submission of code rather than closing words. */
export function finalHoldsCode(output: string, entryPoint: string): boolean {
  if (findFencedBlocks(output.replace(/\r\n?/g, "\n")).length > 0) return true;
  const def = new RegExp(
    `^[ \\t]*(?:async[ \\t]+)?def[ \\t]+${entryPoint.replace(/[.*+?^${}()|[\]\\]/g, "\\$&")}[ \\t]*\\(`,
    "m",
  );
  return def.test(output);
}

/**
 * The answer in the solution file: what follows the prompt when the file still starts with it byte
 * for byte (the harness's `prompt + completion`; nothing after it is no answer), else the whole file
 * (an agent that rewrote it); either through the single-shot extraction.
 */
export function extractFromFile(text: string, problem: HumanEvalProblem): ExtractedCode {
  const file = text.replace(/\r\n?/g, "\n");
  const prompt = problem.prompt.replace(/\r\n?/g, "\n");
  const opts = { entryPoint: problem.entry_point, prompt: problem.prompt };
  if (!file.startsWith(prompt)) return extractCode(file, opts);
  const rest = file.slice(prompt.length);
  if (rest.trim() === "") return { completion: "", kind: "none", source: "raw" };
  return extractCode(rest, opts);
}

/** A file name made safe for a directory (task ids hold `/`). */
function safeName(id: string): string {
  return id.replace(/[^A-Za-z0-9._-]/g, "_").slice(0, 100);
}

/** The directory of one sample's episode artifacts. */
export function sampleArtifactDir(out: string, taskId: string, sampleIndex: number): string {
  return join(out, "humaneval", safeName(taskId), `sample-${sampleIndex}`);
}

/** Read the solution file back; the participant's doing when it is gone, huge or not a file (backend answering). */
async function readSolution(env: Environment): Promise<{ text: string } | { noAnswer: string } | { infra: string }> {
  const path = `${WORKDIR}/${SOLUTION_FILE}`;
  try {
    const text = await env.readFile(path);
    if (Buffer.byteLength(text) > MAX_SOLUTION_BYTES)
      return { noAnswer: `${SOLUTION_FILE} is over ${MAX_SOLUTION_BYTES} bytes` };
    return { text };
  } catch (err) {
    const problem = await env.backendProblem();
    if (problem !== null) return { infra: `reading ${SOLUTION_FILE}: ${problem}` };
    return { noAnswer: `${SOLUTION_FILE} could not be read: ${errorMessage(err)}` };
  }
}

/**
 * Run one sample's episode in a fresh environment and take its answer. Never throws for the
 * participant's failures; SandboxCapabilityError (the sandbox has no environments) stops the run.
 */
export async function runSampleEpisode(
  problem: HumanEvalProblem,
  sampleIndex: number,
  ctx: EvaluateContext,
  onCommand?: (event: CommandEvent) => void,
): Promise<SampleEpisode> {
  const url = ctx.options.agent;
  if (url === undefined) throw new BenchError("E_NO_PARTICIPANT", "humaneval interactive: no participant (agent)");
  const provider = humanEvalEnvironments(ctx.sandbox);
  const artifacts = sampleArtifactDir(ctx.options.out, problem.task_id, sampleIndex);
  const trajectoryPath = join(artifacts, "trajectory.jsonl");
  const trajectory = relative(ctx.options.out, trajectoryPath);
  const instruction = episodeInstruction(problem);
  const env = await provider.openEnvironment(
    {
      // From the base image where environments start from images (docker, e2b); else (local) this host's
      // allowlisted system with an empty working tree of the environment's own.
      ...(ctx.sandbox.capabilities.has("images") ? { image: HUMANEVAL_IMAGE } : { tree: { dir: WORKDIR } }),
      owner: ctx.options.run_id,
      files: { dir: WORKDIR, entries: { [SOLUTION_FILE]: problem.prompt, [TASK_FILE]: instruction + "\n" } },
    },
    ctx.signal,
  );
  try {
    const sink = trajectoryFile(trajectoryPath, ctx.options.max_trajectory_bytes);
    let record: EpisodeRecord;
    try {
      record = await runEpisode({
        instruction,
        facts: { benchmark: "humaneval", instance_id: problem.task_id, workdir: WORKDIR },
        limits: episodeLimitsOf(ctx.options),
        participant: createA2ATurnSender({
          url,
          maxReplyBytes: maxReplyBytes(ctx.options.max_participant_reply_bytes),
          // The run's client: its card was fetched once, by the participant check, not per episode.
          ...(ctx.participant?.client ? { client: ctx.participant.client.bind(ctx.participant) } : {}),
        }),
        environment: shellEnvironment(env, { workdir: WORKDIR }),
        signal: ctx.signal,
        ...(onCommand ? { onCommand } : {}),
        trajectory: sink,
      });
    } finally {
      await sink.close();
    }
    const base = { record, trajectory, extracted: null, answerSource: null };
    const status = record.exit_status;
    if (status === "environment_error" || status === "canceled")
      return { ...base, infraError: record.error?.message ?? `the episode ended ${status}` };
    if (status !== "final")
      return {
        ...base,
        noAnswer: `the episode ended ${status} without a final answer${record.error ? `: ${record.error.message}` : ""}`,
      };
    const output = record.final_output ?? "";
    if (finalHoldsCode(output, problem.entry_point)) {
      const extracted = extractCode(output, { entryPoint: problem.entry_point, prompt: problem.prompt });
      return { ...base, extracted, answerSource: "final" };
    }
    const file = await readSolution(env);
    if ("infra" in file) return { ...base, infraError: file.infra };
    if ("noAnswer" in file) return { ...base, noAnswer: file.noAnswer };
    return { ...base, extracted: extractFromFile(file.text, problem), answerSource: "file" };
  } finally {
    await env.close();
  }
}
