/**
 * HumanEval as a runner plug-in: ask the participant n times per task,
 * extract each completion, run `prompt + completion + test + check()` in the
 * sandbox (one execMany per task), record every completion's verdict. With
 * `predictions` (a samples file in OpenAI's format) the task's completions
 * come from the file, appended to the prompt as written (no extraction), as
 * OpenAI's `evaluate_functional_correctness` scores them.
 * The row's `status` is `passed` when all n completions passed, else the
 * status of the first completion that did not; `passed` likewise.
 */
import type { BenchmarkDefinition, DatasetInfo, EvaluateContext } from "../../runner/benchmark.js";
import type { RunOptions } from "../../runner/options.js";
import type { ExecOutcome, ExecRequest } from "../../sandbox/types.js";
import { extractCode, type ExtractedCode } from "./extract-code.js";
import { errorMessage, BenchError } from "../../util/errors.js";
import type { Logger } from "../../util/logger.js";
import { aggregateHumanEval } from "./aggregate.js";
import type { CompletionRecord, HumanEvalRow } from "./row.js";
import { classifyOutcome, type FailureMode } from "./classify.js";
import { loadHumanEval, SAMPLE_DATASET, type LoadedDataset } from "./dataset.js";
import type { HumanEvalProblem } from "./problem.js";
import { buildProgram } from "./program.js";
import { buildRequest } from "./request.js";
import { loadSamples, type SampleCompletions } from "./samples-file.js";
import { benchmarkNeedsParticipant } from "../needs-participant.js";
import { addUsage, type TokenUsage } from "../../a2a/usage.js";

export interface HumanEvalItem {
  id: string;
  problem: HumanEvalProblem;
}

/** Completion text kept in a row, characters (the program itself can be rebuilt from it). */
const MAX_COMPLETION_CHARS = 8000;

interface Answer {
  extracted: ExtractedCode | null;
  agentSeconds: number;
  /** Set when the participant did not answer (transport/timeout, or a task it ended without completing). */
  failure: { mode: FailureMode; message: string } | null;
  /** Tokens the participant reported for this answer. */
  usage?: TokenUsage;
}

async function ask(
  problem: HumanEvalProblem,
  ctx: EvaluateContext,
  dataset: string,
  sampleIndex: number,
): Promise<Answer> {
  const started = performance.now();
  if (!ctx.participant) {
    return {
      extracted: null,
      agentSeconds: 0,
      failure: { mode: "infrastructure_participant", message: "no participant" },
    };
  }
  try {
    const reply = await ctx.participant.ask(buildRequest(problem, dataset, sampleIndex), ctx.signal);
    const usage = reply.usage ? { usage: reply.usage } : {};
    if (reply.state !== "completed" && reply.state !== "message") {
      // The participant gave up on the task (its solver failed, it refused...): no answer to run, its failure.
      const message = `participant ended the task ${reply.state}: ${reply.text.slice(0, 500)}`;
      return {
        extracted: null,
        agentSeconds: (performance.now() - started) / 1000,
        failure: { mode: "model_no_code", message },
        ...usage,
      };
    }
    const text = reply.text !== "" ? reply.text : replyDataCode(reply.data);
    const extracted = extractCode(text, { entryPoint: problem.entry_point, prompt: problem.prompt });
    return { extracted, agentSeconds: (performance.now() - started) / 1000, failure: null, ...usage };
  } catch (err) {
    const code = err instanceof BenchError ? err.code : "";
    return {
      extracted: null,
      agentSeconds: (performance.now() - started) / 1000,
      failure: {
        mode: code === "E_PARTICIPANT_TIMEOUT" ? "model_agent_timeout" : "infrastructure_participant",
        message: errorMessage(err),
      },
    };
  }
}

// Agents that answer only with a DataPart: accept {code}, {completion} or {solution}.
function replyDataCode(data: Record<string, unknown>[]): string {
  for (const d of data) {
    for (const key of ["code", "completion", "solution"]) if (typeof d[key] === "string") return d[key];
  }
  return "";
}

function record(answer: Answer, outcome: ExecOutcome | null, entryPoint: string): CompletionRecord {
  const base = {
    completion_kind: answer.extracted?.kind ?? "none",
    completion: answer.extracted?.completion.slice(0, MAX_COMPLETION_CHARS) ?? "",
    agent_seconds: Number(answer.agentSeconds.toFixed(3)),
    ...(answer.usage ? { usage: answer.usage } : {}),
  };
  if (answer.failure) {
    return {
      ...base,
      status: "error",
      failure_mode: answer.failure.mode,
      limit_breach: false,
      executed: false,
      duration_ms: null,
      error: answer.failure.message,
    };
  }
  if (!outcome) {
    return {
      ...base,
      status: "error",
      failure_mode: "model_no_code",
      limit_breach: false,
      executed: false,
      duration_ms: null,
      error: "no code in the reply",
    };
  }
  const verdict = classifyOutcome(outcome, entryPoint);
  return {
    ...base,
    status: verdict.status,
    failure_mode: verdict.failure_mode,
    limit_breach: verdict.limit_breach,
    executed: !outcome.infraError,
    duration_ms: Math.round(outcome.durationMs),
    exit_code: outcome.exitCode,
    signal: outcome.signal,
    exception: verdict.exception,
    proof: "not_requested",
    reason: verdict.reason,
    stdout_tail: outcome.stdoutTail,
    stderr_tail: outcome.stderrTail,
    ...(outcome.infraError ? { error: outcome.infraError } : {}),
  };
}

/** `fn` called once per key; later calls share the first call's promise. */
function memoByKey<T>(fn: (key: string) => Promise<T>): (key: string) => Promise<T> {
  const cache = new Map<string, Promise<T>>();
  return (key) => {
    let p = cache.get(key);
    if (!p) {
      p = fn(key);
      cache.set(key, p);
    }
    return p;
  };
}

/** The datasets and samples files one benchmark instance reads, each once. */
interface HumanEvalSources {
  load(dataset: string): Promise<LoadedDataset>;
  samplesOf(path: string): Promise<SampleCompletions>;
}

function datasetOf(options: RunOptions): string {
  return options.dataset ?? SAMPLE_DATASET;
}

/** The task's completions from the samples file, as answers (none: one "no code" failure). */
async function fileAnswers(sources: HumanEvalSources, path: string, taskId: string): Promise<Answer[]> {
  const completions = (await sources.samplesOf(path)).get(taskId) ?? [];
  if (completions.length === 0) {
    return [
      {
        extracted: null,
        agentSeconds: 0,
        failure: { mode: "model_no_code", message: `no completion for ${taskId} in the predictions file` },
      },
    ];
  }
  return completions.map((completion) => ({
    extracted: { completion, kind: "body", source: "raw" },
    agentSeconds: 0,
    failure: null,
  }));
}

/** The dataset's tasks as items; with `predictions`, the samples file is read (and validated) first. */
async function loadItems(sources: HumanEvalSources, options: RunOptions, logger: Logger): Promise<HumanEvalItem[]> {
  const ds = await sources.load(datasetOf(options));
  if (options.predictions) {
    // Read (and validate) the samples file before any task runs.
    const samples = await sources.samplesOf(options.predictions);
    const known = new Set(ds.problems.map((p) => p.task_id));
    const unknown = [...samples.keys()].filter((id) => !known.has(id));
    if (unknown.length > 0)
      logger.warn(
        { unknown: unknown.slice(0, 5), count: unknown.length },
        "predictions file has task ids that are not in the dataset; they are ignored",
      );
  }
  return ds.problems.map((problem) => ({ id: problem.task_id, problem }));
}

/** The item's answers: from the samples file, or n asks of the participant (fewer when the run stops). */
async function answersFor(sources: HumanEvalSources, item: HumanEvalItem, ctx: EvaluateContext): Promise<Answer[]> {
  if (ctx.options.predictions) return fileAnswers(sources, ctx.options.predictions, item.problem.task_id);
  const n = ctx.options.n ?? 1;
  const answers: Answer[] = [];
  for (let i = 0; i < n && !ctx.signal.aborted; i++)
    answers.push(await ask(item.problem, ctx, datasetOf(ctx.options), i));
  return answers;
}

/** Run every answer that has code in one execMany; the outcome per answer (null: not run). */
async function runAnswers(
  problem: HumanEvalProblem,
  answers: readonly Answer[],
  ctx: EvaluateContext,
): Promise<Array<ExecOutcome | null>> {
  const timeoutMs = (ctx.options.per_task_timeout_seconds ?? 3) * 1000;
  const runnable = answers
    .map((a, index) => ({ a, index }))
    .filter(({ a }) => a.extracted !== null && a.extracted.kind !== "none");
  const requests: ExecRequest[] = runnable.map(({ a }) => ({
    language: "python",
    code: buildProgram(problem, a.extracted?.completion ?? ""),
    timeoutMs,
  }));
  const outcomes: Array<ExecOutcome | null> = answers.map(() => null);
  if (requests.length > 0 && !ctx.signal.aborted) {
    const results = await ctx.sandbox.execMany(requests, ctx.signal);
    runnable.forEach(({ index }, j) => {
      outcomes[index] = results[j] ?? null;
    });
  }
  return outcomes;
}

/** Ask (or read) the task's completions, run them, and record the row. */
async function evaluateTask(
  sources: HumanEvalSources,
  item: HumanEvalItem,
  ctx: EvaluateContext,
): Promise<HumanEvalRow> {
  const started = performance.now();
  const answers = await answersFor(sources, item, ctx);
  const outcomes = await runAnswers(item.problem, answers, ctx);
  const samples = answers.map((a, i) => record(a, outcomes[i] ?? null, item.problem.entry_point));
  const usage = answers.reduce<TokenUsage | undefined>((sum, a) => addUsage(sum, a.usage), undefined);
  const numCorrect = samples.filter((s) => s.status === "passed").length;
  const firstBad = samples.find((s) => s.status !== "passed");
  // A stopped run leaves this item unfinished: the runner neither counts nor checkpoints a canceled row.
  const canceled = ctx.signal.aborted;
  return {
    id: item.id,
    task_id: item.problem.task_id,
    entry_point: item.problem.entry_point,
    status: canceled ? "canceled" : (firstBad?.status ?? "passed"),
    passed: !canceled && samples.length > 0 && firstBad === undefined,
    elapsed_seconds: Number(((performance.now() - started) / 1000).toFixed(3)),
    ...(firstBad?.failure_mode ? { failure_mode: firstBad.failure_mode } : {}),
    error: typeof firstBad?.["error"] === "string" ? firstBad["error"] : null,
    ...(typeof firstBad?.["reason"] === "string" ? { reason: firstBad["reason"] } : {}),
    n: samples.length,
    num_correct: numCorrect,
    ...(usage ? { usage } : {}),
    samples,
  };
}

/** Create the HumanEval benchmark definition (datasets and samples files are read once per instance). */
export function createHumanEvalBenchmark(env: NodeJS.ProcessEnv = process.env): BenchmarkDefinition<HumanEvalItem> {
  const sources: HumanEvalSources = {
    load: memoByKey((dataset: string): Promise<LoadedDataset> => loadHumanEval(dataset, env)),
    samplesOf: memoByKey((path: string): Promise<SampleCompletions> => loadSamples(path)),
  };
  return {
    name: "humaneval",
    // An item is one participant round trip, then milliseconds of sandbox work; it holds nothing meanwhile.
    inFlight: "participant",
    warmSandbox: true,
    loadItems: (options, logger) => loadItems(sources, options, logger),
    async describeDataset(options): Promise<DatasetInfo> {
      const ds = await sources.load(datasetOf(options));
      return { path: ds.path, sha256: ds.sha256 };
    },
    needsParticipant: benchmarkNeedsParticipant,
    evaluate: (item, ctx) => evaluateTask(sources, item, ctx),
    aggregate: (rows, options) => aggregateHumanEval(rows, options),
  };
}
