/**
 * HumanEval's verdicts by batch replay: record → answer → judge.
 *
 * 1. RECORD (trusted checker, no candidate code): check() runs against the
 *    canonical solution and the ordered list of its calls is kept, arguments
 *    encoded at call time. Once per task, shared by its n completions.
 * 2. ANSWER (the candidate, in the sandbox, one ordinary execMany job per
 *    completion, so every backend runs it unchanged): `prompt + completion`
 *    is called on each recorded call (a file of the job) and writes one
 *    framed answer line per call (answer-program.ts).
 * 3. JUDGE (trusted checker): check() runs again with the same seed; call i
 *    must carry recorded call i's arguments and receives the candidate's
 *    answer i. PASS = check() returned.
 * If a check's later arguments differ from the recorded ones (they depend on
 * earlier answers), the judge records the rest with the oracle and the
 * completion answers again on the extended list, at most {@link MAX_ROUNDS}
 * rounds; beyond that the completion is our error, never a score. A program
 * that answers its arguments consistently moves the divergence strictly later
 * each round (so a check with fewer answer-dependent calls than the bound
 * always settles); one that answers a call of the unchanged prefix differently
 * in the next round is judged failed there (answer-consistency.ts), so it
 * cannot spin the rounds out into our error.
 *
 * What a pass proves: check() — the dataset's own test, in a process the
 * candidate cannot reach — returned when every call got the candidate's
 * answer, an exact plain-data value computed from the arguments alone.
 * Residual: in a check whose later call arguments are computed from earlier
 * answers, the first round shows the candidate arguments derived from the
 * reference's answers. None of HumanEval's 164 checks does that (only
 * HumanEval/32 keeps an answer, and only passes it to poly()).
 */
import type { ExecOutcome, ExecRequest, Sandbox } from "../../sandbox/types.js";
import { errorMessage } from "../../util/errors.js";
import type { CompiledAnswerCodec } from "./answer-codec.js";
import { firstChangedAnswer } from "./answer-consistency.js";
import { ANSWER_MODULE, answerFiles, buildAnswerProgram } from "./answer-program.js";
import { CheckerError, type CheckCall, type HumanEvalChecker, type JudgeResult } from "./checker.js";
import type { HumanEvalProblem } from "./problem.js";

/** Answer rounds per completion before we give up (a check with more answer-dependent calls than this). */
export const MAX_ROUNDS = 32;

/** How one completion's replay ended. */
export interface Replayed {
  /** The last sandbox outcome (null: never ran). */
  outcome: ExecOutcome | null;
  /** The checker's verdict on the last round's answers (null: not judged). */
  judge: JudgeResult | null;
  /** Our failure (checker, rounds exhausted), when it decided; null otherwise. */
  checkerError: string | null;
  /** Answer rounds run. */
  rounds: number;
  /** Calls in the last round. */
  calls: number;
  /** The candidate answered this call of the unchanged prefix differently than in the round before (its failure). */
  changedAnswer?: { call: number; round: number };
  /**
   * The judge ran past the checker's bound on this completion's answers (its failure: the same check already ran
   * to its end on the reference's answers when the calls were recorded).
   */
  judgeTimedOut?: string;
}

export interface ReplayDeps {
  sandbox: Pick<Sandbox, "execMany" | "hasPythonModule">;
  checker: Pick<HumanEvalChecker, "judge">;
  /** The task's recorded calls (cached per task by the caller). */
  plan: (problem: HumanEvalProblem) => Promise<CheckCall[]>;
  /** The answer codec compiled by the checker (checker.answerCodec); without it every job compiles the codec. */
  answerCodec?: () => Promise<CompiledAnswerCodec | null>;
  /** Wall limit of one answer job, ms. */
  timeoutMs: number;
  signal?: AbortSignal;
}

interface State extends Replayed {
  problem: HumanEvalProblem;
  completion: string;
  pending: CheckCall[] | null;
  /** The previous round's answer channel and where its check diverged. */
  previous: { answers: string; at: number } | null;
}

function answerRequest(
  s: State & { pending: CheckCall[] },
  compiled: CompiledAnswerCodec | null,
  preloaded: boolean,
  timeoutMs: number,
): ExecRequest {
  const { problem, completion, pending: calls } = s;
  return {
    language: "python",
    code: buildAnswerProgram(problem, completion, compiled, preloaded),
    files: answerFiles(calls),
    timeoutMs,
  };
}

/** Judge one round's outcome; sets `pending` to the extended call list when the check diverged. */
async function judgeOne(s: State, calls: CheckCall[], deps: ReplayDeps): Promise<void> {
  s.pending = null;
  if (!s.outcome || s.outcome.infraError !== undefined || s.outcome.isCanceled) return;
  try {
    s.judge = await deps.checker.judge(s.problem, calls, s.outcome.stdoutTail);
  } catch (err) {
    if (err instanceof CheckerError && err.timedOut) s.judgeTimedOut = errorMessage(err);
    else s.checkerError = errorMessage(err);
    return;
  }
  if (s.judge.verdict !== "diverged") return;
  const answers = s.outcome.stdoutTail;
  if (s.previous !== null && s.judge.at <= s.previous.at) {
    const call = firstChangedAnswer(s.previous.answers, answers, s.previous.at);
    if (call !== null) {
      s.changedAnswer = { call, round: s.rounds };
      return;
    }
  }
  s.previous = { answers, at: s.judge.at };
  if (s.rounds >= MAX_ROUNDS) {
    s.checkerError = `check() kept calling with new arguments after ${MAX_ROUNDS} answer rounds`;
    return;
  }
  s.pending = s.judge.calls;
}

/** Each job's recorded calls (a failed record settles the job as our error). */
async function planAll(states: readonly State[], deps: ReplayDeps): Promise<void> {
  await Promise.all(
    states.map(async (s) => {
      try {
        s.pending = await deps.plan(s.problem);
      } catch (err) {
        s.checkerError = `recording the reference calls failed: ${errorMessage(err)}`;
      }
    }),
  );
}

/**
 * Record (cached by `plan`), answer, judge, and replay again while a check diverges, for any mix of
 * problems and completions: each round is ONE execMany of every job still pending. Never rejects.
 */
export async function replayJobs(
  jobs: ReadonlyArray<{ problem: HumanEvalProblem; completion: string }>,
  deps: ReplayDeps,
): Promise<Replayed[]> {
  const states: State[] = jobs.map(({ problem, completion }) => ({
    problem,
    completion,
    outcome: null,
    judge: null,
    checkerError: null,
    rounds: 0,
    calls: 0,
    pending: null,
    previous: null,
  }));
  await planAll(states, deps);
  const compiled = (await deps.answerCodec?.().catch(() => null)) ?? null;
  for (;;) {
    const todo = states.filter((s): s is State & { pending: CheckCall[] } => s.pending !== null);
    if (todo.length === 0 || deps.signal?.aborted) break;
    const preloaded = deps.sandbox.hasPythonModule?.(ANSWER_MODULE) ?? false;
    const requests = todo.map((s) => answerRequest(s, compiled, preloaded, deps.timeoutMs));
    const outcomes = await deps.sandbox.execMany(requests, deps.signal);
    await Promise.all(
      todo.map((s, j) => {
        const calls = s.pending;
        s.outcome = outcomes[j] ?? null;
        s.rounds++;
        s.calls = calls.length;
        return judgeOne(s, calls, deps);
      }),
    );
  }
  return states.map(({ outcome, judge, checkerError, rounds, calls, changedAnswer, judgeTimedOut }) => ({
    outcome,
    judge,
    checkerError,
    rounds,
    calls,
    ...(changedAnswer ? { changedAnswer } : {}),
    ...(judgeTimedOut !== undefined ? { judgeTimedOut } : {}),
  }));
}

/** {@link replayJobs} for one problem's completions (the runner's unit: one task, its n samples). */
export function replayCompletions(
  problem: HumanEvalProblem,
  completions: readonly string[],
  deps: ReplayDeps,
): Promise<Replayed[]> {
  return replayJobs(
    completions.map((completion) => ({ problem, completion })),
    deps,
  );
}
