/**
 * HumanEval as a runner plug-in: ask the participant n times per task,
 * extract each completion, and judge it by batch replay (replay.ts): the
 * trusted checker records check()'s calls once per task, the sandbox runs
 * `prompt + completion` on them (one execMany per task and round), and the
 * checker replays check() on the answers. With
 * `predictions` (a samples file in OpenAI's format) the task's completions
 * come from the file, appended to the prompt as written (no extraction), as
 * OpenAI's `evaluate_functional_correctness` scores them.
 * The row's `status` is `passed` when all n completions passed, else the
 * status of the first completion that did not; `passed` likewise.
 */
import type { BenchmarkDefinition, DatasetInfo, EvaluateContext } from "../../runner/benchmark.js";
import type { RunOptions } from "../../runner/options.js";
import { extractCode, type ExtractedCode } from "../scoring/extract-code.js";
import { memoByKey } from "../scoring/memo.js";
import { errorMessage } from "../../util/errors.js";
import { SandboxCapabilityError } from "../../sandbox/capabilities.js";
import type { Logger } from "../../util/logger.js";
import { aggregateHumanEval, createHumanEvalAggregator } from "./aggregate.js";
import { keptTail, type CompletionRecord, type HumanEvalRow } from "./row.js";
import { classifyReplay, type FailureMode } from "./classify.js";
import { CallsCache, defaultCallsCacheDir } from "./calls-cache.js";
import { CHECKER_PROGRAM_SHA256, HumanEvalChecker, type CheckCall } from "./checker.js";
import { replayCompletions, type Replayed } from "./replay.js";
import { ANSWER_MODULE, ANSWER_MODULE_PY } from "./answer-program.js";
import { loadHumanEval, type LoadedDataset } from "./dataset.js";
import type { HumanEvalProblem } from "./problem.js";
import { buildRequest } from "./request.js";
import { indexSamples, type SamplesIndex } from "./samples-file.js";
import { benchmarkNeedsParticipant } from "../needs-participant.js";
import { attributedStatus } from "../../runner/attribution.js";
import { participantFailureMode } from "../../runner/participant-failure.js";
import { addUsage, type TokenUsage } from "../../a2a/shared/usage.js";
import { humanEvalEnvironments, runSampleEpisode, type SampleEpisode } from "./episode.js";
import { answerOfEpisode, episodeSampleFields } from "./episode-answer.js";

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
  /** The reply's text as received (kept on the record when no code could be taken from it). */
  replyText?: string;
  /** Interactive: the sample's episode (episode.ts). */
  episode?: SampleEpisode;
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
        replyText: reply.text,
        ...usage,
      };
    }
    const text = reply.text !== "" ? reply.text : replyDataCode(reply.data);
    const extracted = extractCode(text, { entryPoint: problem.entry_point, prompt: problem.prompt });
    return { extracted, agentSeconds: (performance.now() - started) / 1000, failure: null, replyText: text, ...usage };
  } catch (err) {
    return {
      extracted: null,
      agentSeconds: (performance.now() - started) / 1000,
      failure: { mode: participantFailureMode(err), message: errorMessage(err) },
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

function record(answer: Answer, replayed: Replayed | null, entryPoint: string): CompletionRecord {
  const base = {
    completion_kind: answer.extracted?.kind ?? "none",
    completion: answer.extracted?.completion.slice(0, MAX_COMPLETION_CHARS) ?? "",
    agent_seconds: Number(answer.agentSeconds.toFixed(3)),
    ...(answer.usage ? { usage: answer.usage } : {}),
    // A reply nothing could be run from: what the participant said instead is the record of its answer.
    ...(answer.replyText !== undefined && (!answer.extracted || answer.extracted.kind === "none")
      ? { reply_tail: keptTail(answer.replyText) }
      : {}),
    ...(answer.episode ? episodeSampleFields(answer.episode) : {}),
  };
  const notRun = (failure_mode: FailureMode, error: string): CompletionRecord => ({
    ...base,
    // No code, no answer: the participant's failure (`failed`); `error` only for our side's (attribution.ts).
    status: attributedStatus("error", failure_mode),
    failure_mode,
    limit_breach: false,
    executed: false,
    duration_ms: null,
    error,
  });
  if (answer.failure) return notRun(answer.failure.mode, answer.failure.message);
  if (!replayed) return notRun("model_no_code", "no code in the reply");
  const verdict = classifyReplay(replayed, entryPoint);
  const outcome = replayed.outcome;
  const isOurs = verdict.failure_mode === "infrastructure_sandbox" || verdict.failure_mode === "infrastructure_checker";
  return {
    ...base,
    status: verdict.status,
    failure_mode: verdict.failure_mode,
    limit_breach: verdict.limit_breach,
    executed: outcome !== null && outcome.infraError === undefined,
    duration_ms: outcome ? Math.round(outcome.durationMs) : null,
    exit_code: outcome?.exitCode ?? null,
    signal: outcome?.signal ?? null,
    exception: verdict.exception,
    reason: verdict.reason,
    rounds: replayed.rounds,
    calls: replayed.calls,
    stdout_tail: keptTail(outcome?.stdoutTail ?? ""),
    stderr_tail: keptTail(outcome?.stderrTail ?? ""),
    ...(isOurs && verdict.reason !== null ? { error: verdict.reason } : {}),
  };
}

/** The datasets and samples files one benchmark instance reads, each once. */
interface HumanEvalSources {
  load(dataset: string): Promise<LoadedDataset>;
  samplesOf(path: string): Promise<SamplesIndex>;
}

function datasetOf(options: RunOptions): string {
  return options.dataset;
}

/** The task's completions from the samples file, as answers (none: one "no code" failure). */
async function fileAnswers(sources: HumanEvalSources, path: string, taskId: string): Promise<Answer[]> {
  // Only this task's lines are read, and only while it is evaluated.
  const completions = await (await sources.samplesOf(path)).read(taskId);
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
    const unknown = samples.taskIds().filter((id) => !known.has(id));
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
  const n = ctx.options.n;
  const answers: Answer[] = [];
  for (let i = 0; i < n && !ctx.signal.aborted; i++)
    answers.push(
      ctx.options.interaction === "interactive"
        ? await episodeAnswer(item.problem, ctx, i)
        : await ask(item.problem, ctx, datasetOf(ctx.options), i),
    );
  return answers;
}

/**
 * Interactive: sample `i` is one episode in its own fresh environment (episode.ts). A failure to open the
 * environment is ours (the sample is an infrastructure error, never a score); a sandbox without
 * environments stops the run.
 */
async function episodeAnswer(problem: HumanEvalProblem, ctx: EvaluateContext, i: number): Promise<Answer> {
  const started = performance.now();
  try {
    const episode = await runSampleEpisode(problem, i, ctx, (e) => ctx.onTurn?.(e));
    return answerOfEpisode(episode, (performance.now() - started) / 1000);
  } catch (err) {
    if (err instanceof SandboxCapabilityError) throw err;
    return {
      extracted: null,
      agentSeconds: (performance.now() - started) / 1000,
      failure: { mode: "infrastructure_sandbox", message: errorMessage(err) },
    };
  }
}

/** What judging needs besides the run's context: the checker and the per-task call plans. */
interface Judging {
  checker: HumanEvalChecker;
  plan: (problem: HumanEvalProblem) => Promise<CheckCall[]>;
}

/** Replay every answer that has code (one execMany per round); the replay per answer (null: not run). */
async function runAnswers(
  judging: Judging,
  problem: HumanEvalProblem,
  answers: readonly Answer[],
  ctx: EvaluateContext,
): Promise<Array<Replayed | null>> {
  const runnable = answers
    .map((a, index) => ({ a, index }))
    .filter(({ a }) => a.extracted !== null && a.extracted.kind !== "none");
  const results: Array<Replayed | null> = answers.map(() => null);
  if (runnable.length === 0 || ctx.signal.aborted) return results;
  const replayed = await replayCompletions(
    problem,
    runnable.map(({ a }) => a.extracted?.completion ?? ""),
    {
      sandbox: ctx.sandbox,
      checker: judging.checker,
      plan: judging.plan,
      answerCodec: () => judging.checker.answerCodec(),
      timeoutMs: ctx.options.per_task_timeout_seconds * 1000,
      signal: ctx.signal,
    },
  );
  runnable.forEach(({ index }, j) => {
    results[index] = replayed[j] ?? null;
  });
  return results;
}

/** Ask (or read) the task's completions, run them, and record the row. */
async function evaluateTask(
  sources: HumanEvalSources,
  judging: Judging,
  item: HumanEvalItem,
  ctx: EvaluateContext,
): Promise<HumanEvalRow> {
  const started = performance.now();
  // A sandbox without environments stops the run before any participant is asked (our configuration).
  if (ctx.options.interaction === "interactive" && !ctx.options.predictions) humanEvalEnvironments(ctx.sandbox);
  const answers = await answersFor(sources, item, ctx);
  const outcomes = await runAnswers(judging, item.problem, answers, ctx);
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
    ...(ctx.options.interaction === "interactive" && !ctx.options.predictions
      ? { interaction: "interactive" as const }
      : {}),
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

/**
 * A checker (started on first use) and its per-problem call plans, recorded once per problem or read from the
 * on-disk calls cache (calls-cache.ts) of the run's dataset; new records are written back when the run ends.
 */
function createJudging(env: NodeJS.ProcessEnv): Judging & { useDataset(sha256: string): void; close(): Promise<void> } {
  let checker = new HumanEvalChecker();
  let plans = new WeakMap<HumanEvalProblem, Promise<CheckCall[]>>();
  let cache: Promise<CallsCache | null> = Promise.resolve(null);
  return {
    get checker() {
      return checker;
    },
    useDataset(sha256) {
      const dir = defaultCallsCacheDir(env);
      const c = checker;
      // The interpreter's path is part of the key; resolving it is shared with the sandbox's probe.
      cache = c.interpreter().then(
        (python) => new CallsCache({ dir, checker: CHECKER_PROGRAM_SHA256, dataset: sha256, python }),
        () => null,
      );
    },
    plan(problem) {
      let p = plans.get(problem);
      if (!p) {
        const c = checker;
        p = cache.then((k) => (k ? k.plan(problem, (q) => c.record(q)) : c.record(problem)));
        plans.set(problem, p);
      }
      return p;
    },
    async close() {
      const old = checker;
      const oldCache = cache;
      checker = new HumanEvalChecker();
      plans = new WeakMap();
      cache = Promise.resolve(null);
      await old.close();
      await (await oldCache)?.flush();
    },
  };
}

/** Create the HumanEval benchmark definition (datasets and samples files are read once per instance). */
export function createHumanEvalBenchmark(env: NodeJS.ProcessEnv = process.env): BenchmarkDefinition<HumanEvalItem> {
  const sources: HumanEvalSources = {
    load: memoByKey((dataset: string): Promise<LoadedDataset> => loadHumanEval(dataset, env)),
    samplesOf: memoByKey((path: string): Promise<SamplesIndex> => indexSamples(path)),
  };
  const judging = createJudging(env);
  return {
    name: "humaneval",
    // An item is one participant round trip, then milliseconds of sandbox work; it holds nothing meanwhile.
    inFlight: "participant",
    // The answer codec and function are loaded once where jobs are forked; the answer jobs need only the
    // standard library (as the dataset's problems are written), so that interpreter starts without site.
    warmSandbox: { pythonModules: { [ANSWER_MODULE]: ANSWER_MODULE_PY }, pythonStdlibOnly: true },
    loadItems: async (options, logger) => {
      const items = await loadItems(sources, options, logger);
      judging.checker.warmUp();
      judging.useDataset((await sources.load(datasetOf(options))).sha256);
      return items;
    },
    async describeDataset(options): Promise<DatasetInfo> {
      const ds = await sources.load(datasetOf(options));
      return { path: ds.path, sha256: ds.sha256 };
    },
    needsParticipant: benchmarkNeedsParticipant,
    evaluate: (item, ctx) => evaluateTask(sources, judging, item, ctx),
    aggregate: (rows, options) => aggregateHumanEval(rows, options),
    createAggregator: (options) => createHumanEvalAggregator(options),
    endRun: () => judging.close(),
  };
}
