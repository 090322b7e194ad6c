/**
 * One attempt at one task: its environment (built from its Dockerfile, cached),
 * the participant's episode in it (our interactive episode, unchanged: the
 * instruction as the task message, the task's agent timeout as the episode's
 * time limit), then the verdict out of the participant's reach (verdict.ts).
 *
 * Ours, never the participant's 0: an environment that cannot be built or
 * started, a verifier that crashed (each retried once), an episode that
 * ended `environment_error`. Those rows are `error` with an `infrastructure_*`
 * failure mode. Except: once the participant had the environment, an
 * environment gone (or a harness step in it killed) while its engine still
 * answers is the participant's doing (`model_destroyed_environment`, 0).
 */
import { join, relative } from "node:path";
import { mkdir, writeFile } from "node:fs/promises";
import type { EvaluateContext } from "../../runner/benchmark.js";
import { maxReplyBytes } from "../../a2a/client/reply-limit.js";
import { createA2ATurnSender } from "../../interactive/a2a-sender.js";
import { runEpisode } from "../../interactive/episode.js";
import type { EpisodeRecord } from "../../interactive/episode-record.js";
import { shellEnvironment } from "../../interactive/shell-environment.js";
import { trajectoryFile } from "../../interactive/trajectory.js";
import { episodeLimitsOf } from "../../request-config/interaction-rules.js";
import { environmentsOf, type Environment } from "../../sandbox/environment.js";
import { DEFAULT_LIMITS } from "../../sandbox/limits.js";
import { BenchError, errorMessage } from "../../util/errors.js";
import { environmentImage, type BuiltImage } from "./image.js";
import { TerminalVerifierError } from "./errors.js";
import type { TerminalRow } from "./row.js";
import type { TerminalTask } from "./task.js";
import { endEpisodeProcesses, environmentLost, runVerifier, tamperCheck, type VerdictOutcome } from "./verdict.js";

/** Processes an environment may hold (compilers, test runners, servers a task starts). */
export const TASK_MAX_PROCESSES = 512;
/** Tries of an infrastructure step (a build, an environment's start, the verifier) before the attempt is an error. */
export const INFRA_TRIES = 2;

export interface AttemptItem {
  id: string;
  task: TerminalTask;
  attempt: number;
}

/** The episode's limits: the run's, with the task's agent timeout as the episode's time. */
export function attemptLimits(ctx: EvaluateContext, task: TerminalTask) {
  return {
    ...episodeLimitsOf(ctx.options),
    episodeTimeS: Math.min(86_400, Math.max(1, Math.ceil(task.agentTimeoutSec))),
  };
}

function base(item: AttemptItem): Pick<TerminalRow, "id" | "task_id" | "attempt" | "instruction"> {
  return { id: item.id, task_id: item.task.id, attempt: item.attempt, instruction: item.task.instruction };
}

async function retried<T>(what: () => Promise<T>, retries: { n: number }, signal: AbortSignal): Promise<T> {
  for (let i = 1; ; i++) {
    try {
      return await what();
    } catch (err) {
      // A step killed in the environment (its memory left full) fails the same way again.
      if (i >= INFRA_TRIES || signal.aborted || (err instanceof TerminalVerifierError && err.killed)) throw err;
      retries.n++;
    }
  }
}

/** One attempt's state while it runs: its clock, its retries, how it words an infrastructure error. */
class Attempt {
  private readonly started = performance.now();
  readonly retries = { n: 0 };
  constructor(
    readonly item: AttemptItem,
    readonly ctx: EvaluateContext,
  ) {}

  elapsed(): number {
    return (performance.now() - this.started) / 1000;
  }

  /** Ours, never a score: status `error`, an `infrastructure_*` failure mode. */
  infra(
    code: string,
    message: string,
    extra: Partial<TerminalRow> = {},
    mode:
      | "infrastructure_sandbox"
      | "infrastructure_task_environment"
      | "infrastructure_verifier" = "infrastructure_sandbox",
  ): TerminalRow {
    return {
      ...base(this.item),
      status: "error",
      passed: false,
      reward: null,
      elapsed_seconds: this.elapsed(),
      failure_mode: this.ctx.signal.aborted ? "infrastructure_cancelled" : mode,
      error: message,
      error_code: code,
      retries: this.retries.n,
      ...extra,
    };
  }

  retried<T>(what: () => Promise<T>): Promise<T> {
    return retried(what, this.retries, this.ctx.signal);
  }
}

function unsupportedRow(item: AttemptItem, reasons: string[]): TerminalRow {
  return {
    ...base(item),
    status: "unsupported",
    passed: false,
    reward: null,
    elapsed_seconds: 0,
    unsupported: reasons,
    failure_mode: "task_unsupported",
    reason: `not run: ${reasons.join("; ")}`,
  };
}

/** The network the attempt's environment joins: the operator's `terminal_network` when the task asks and is allowed. */
export function attemptNetwork(task: TerminalTask, options: EvaluateContext["options"]): string | undefined {
  return task.allowInternet && options.allow_network === true ? options.terminal_network : undefined;
}

/** Why a task that asks for the network is refused here, or null when it may run. */
export function networkRefusal(task: TerminalTask, options: EvaluateContext["options"]): string | null {
  if (!task.allowInternet || options.allow_network === true) return null;
  return (
    "it asks for the network (task.toml [environment] allow_internet, true when left out, or network_mode = public) " +
    "and the operator did not allow it (allow_network: false)"
  );
}

/**
 * The environment of the attempt: a container with the task's limits, its image built (or found) on the very
 * engine the sandbox places it on (`prepare`: a pool's engines each build and cache it by content).
 */
async function openTaskEnvironment(
  a: Attempt,
): Promise<{ env: Environment; facts: Partial<TerminalRow> } | { row: TerminalRow }> {
  const { task } = a.item;
  const { ctx } = a;
  const network = attemptNetwork(task, ctx.options);
  let built: BuiltImage | undefined;
  let engine: string | undefined;
  let buildError: unknown;
  const provider = environmentsOf(ctx.sandbox, "terminal");
  const facts = (): Partial<TerminalRow> => ({
    ...(built ? { image: built.image, image_cache_hit: built.cacheHit, build_seconds: built.buildSeconds } : {}),
    ...(engine !== undefined ? { engine } : {}),
    network: network ?? "none",
  });
  try {
    const env = await a.retried(() => {
      buildError = undefined;
      return provider.openEnvironment(
        {
          owner: ctx.options.run_id,
          ...(network !== undefined ? { network } : {}),
          prepare: async (place, signal) => {
            engine = place.engine;
            try {
              built = await environmentImage(task, {
                baseImages: ctx.options.terminal_base_images ?? {},
                network: network !== undefined,
                env: place.env,
                signal: signal ?? ctx.signal,
              });
            } catch (err) {
              buildError = err;
              throw err;
            }
            return built.image;
          },
          limits: {
            ...DEFAULT_LIMITS,
            memoryBytes: Math.round(task.memoryMb * 1024 * 1024),
            maxProcesses: TASK_MAX_PROCESSES,
            diskBytes: Math.round(task.storageMb * 1024 * 1024),
            cpus: task.cpus,
          },
          lifetimeMs: (task.agentTimeoutSec + task.verifierTimeoutSec + 600) * 1000,
        },
        ctx.signal,
      );
    });
    return { env, facts: { ...facts(), ...(env.engine !== undefined ? { engine: env.engine } : {}) } };
  } catch (err) {
    if (buildError !== undefined) {
      const code = buildError instanceof BenchError ? buildError.code : "E_TERMINAL_BUILD";
      return { row: a.infra(code, errorMessage(buildError), facts(), "infrastructure_task_environment") };
    }
    const message = `task ${task.id}: the environment did not start: ${errorMessage(err)}`;
    return { row: a.infra("E_TERMINAL_ENVIRONMENT", message, facts()) };
  }
}

/** The participant's episode in the environment; the trajectory in `artifacts`. */
async function runTaskEpisode(a: Attempt, env: Environment, artifacts: string): Promise<EpisodeRecord> {
  const { task } = a.item;
  const { ctx } = a;
  const sink = trajectoryFile(join(artifacts, "trajectory.jsonl"), ctx.options.max_trajectory_bytes);
  try {
    return await runEpisode({
      instruction: task.instruction,
      facts: { benchmark: "terminal", instance_id: task.id },
      limits: attemptLimits(ctx, task),
      participant: createA2ATurnSender({
        url: ctx.options.agent!,
        maxReplyBytes: maxReplyBytes(ctx.options.max_participant_reply_bytes),
        ...(ctx.participant?.client ? { client: ctx.participant.client.bind(ctx.participant) } : {}),
      }),
      environment: shellEnvironment(env),
      signal: ctx.signal,
      onCommand: (e) => ctx.onTurn?.(e),
      trajectory: sink,
    });
  } finally {
    await sink.close();
  }
}

/** The verdict: processes ended, tampering read from outside, the verifier (retried once when it crashes). */
async function judge(a: Attempt, env: Environment): Promise<VerdictOutcome> {
  const survived = await endEpisodeProcesses(env);
  const tampered = await tamperCheck(env);
  const ran = await a.retried(() => runVerifier(env, a.item.task));
  return {
    ...ran,
    tampered: [...(tampered ?? []), ...(survived !== null ? [survived] : [])],
    tamperUnchecked: tampered === null,
  };
}

/** The row of a judged attempt. */
function judgedRow(a: Attempt, facts: Partial<TerminalRow>, verdict: VerdictOutcome): TerminalRow {
  const flagged = verdict.tampered.length > 0;
  const reward = flagged || verdict.verifierTimedOut ? 0 : (verdict.verifierReward ?? 0);
  const passed = reward >= 1;
  const row: TerminalRow = {
    ...base(a.item),
    ...facts,
    status: passed ? "passed" : "failed",
    passed,
    reward,
    verifier_reward: verdict.verifierReward,
    reward_file: verdict.rewardFile,
    ...(verdict.rewardDetails ? { reward_details: verdict.rewardDetails } : {}),
    verifier_timed_out: verdict.verifierTimedOut,
    verifier_exit_code: verdict.verifierExitCode,
    verifier_output: verdict.verifierOutput,
    verifier_seconds: verdict.verifierSeconds,
    tampered: verdict.tampered,
    ...(verdict.tamperUnchecked ? { tamper_unchecked: true } : {}),
    retries: a.retries.n,
    elapsed_seconds: a.elapsed(),
  };
  if (passed) return row;
  const timeout = a.item.task.verifierTimeoutSec;
  return {
    ...row,
    failure_mode: flagged
      ? "model_tampered_with_verifier"
      : verdict.verifierTimedOut
        ? "model_verifier_timeout"
        : "model_wrong_answer",
    reason: flagged
      ? `scored 0: the participant changed what the verifier runs on: ${verdict.tampered.join(", ")}`
      : verdict.verifierTimedOut
        ? `the verifier did not end within its timeout_sec (${timeout} s)`
        : `the verifier's reward is ${String(verdict.verifierReward)}`,
  };
}

/** The participant's 0 for an environment it destroyed or left unable to run the harness's steps. */
function destroyedRow(a: Attempt, facts: Partial<TerminalRow>, why: string, detail?: string): TerminalRow {
  return {
    ...base(a.item),
    ...facts,
    status: "failed",
    passed: false,
    reward: 0,
    verifier_reward: null,
    elapsed_seconds: a.elapsed(),
    failure_mode: "model_destroyed_environment",
    reason: `environment_destroyed: ${why}${detail !== undefined ? ` (${detail})` : ""}`,
    retries: a.retries.n,
  };
}

/**
 * A verifier that gave no reward: the participant's 0 when it destroyed the environment (gone or its harness
 * steps killed while the engine answers) or tampered with the system, else ours.
 */
async function verifierFailed(
  a: Attempt,
  env: Environment,
  facts: Partial<TerminalRow>,
  err: unknown,
): Promise<TerminalRow> {
  const lost = a.ctx.signal.aborted ? null : await environmentLost(env, err);
  if (lost !== null) return destroyedRow(a, facts, lost, errorMessage(err));
  const tampered = await tamperCheck(env).catch(() => null);
  if (tampered !== null && tampered.length > 0 && err instanceof TerminalVerifierError)
    return {
      ...base(a.item),
      ...facts,
      status: "failed",
      passed: false,
      reward: 0,
      verifier_reward: null,
      tampered,
      elapsed_seconds: a.elapsed(),
      failure_mode: "model_tampered_with_verifier",
      reason: `the verifier gave no reward (${errorMessage(err)}) after the participant changed: ${tampered.join(", ")}`,
      retries: a.retries.n,
    };
  const code = err instanceof BenchError ? err.code : "E_TERMINAL_VERIFIER";
  return a.infra(code, errorMessage(err), facts, "infrastructure_verifier");
}

/** Evaluate one attempt. Never throws for the participant's or the task's failures: a row says so. */
export async function runAttempt(item: AttemptItem, ctx: EvaluateContext): Promise<TerminalRow> {
  const refusedNetwork = networkRefusal(item.task, ctx.options);
  const refused = [...item.task.unsupported, ...(refusedNetwork !== null ? [refusedNetwork] : [])];
  if (refused.length > 0) return unsupportedRow(item, refused);
  const a = new Attempt(item, ctx);
  if (ctx.options.agent === undefined) return a.infra("E_NO_PARTICIPANT", "terminal: no participant (agent)");
  const opened = await openTaskEnvironment(a);
  if ("row" in opened) return opened.row;
  const { env } = opened;
  try {
    const artifacts = join(ctx.options.out, "terminal", item.id.replace(/[^A-Za-z0-9._-]/g, "_"));
    await mkdir(artifacts, { recursive: true });
    const record = await runTaskEpisode(a, env, artifacts);
    const facts: Partial<TerminalRow> = {
      ...opened.facts,
      episode_seconds: record.wall_seconds,
      exit_status: record.exit_status,
      turns: record.turns,
      commands: record.commands,
      trajectory: relative(ctx.options.out, join(artifacts, "trajectory.jsonl")),
      ...(record.error ? { episode_error: record.error } : {}),
      ...(record.usage ? { usage: record.usage } : {}),
    };
    if (record.exit_status === "environment_error" && !ctx.signal.aborted) {
      // The environment gone under the episode while its engine answers: the participant ended it.
      const lost = await environmentLost(env, undefined);
      if (lost !== null) return destroyedRow(a, facts, lost, record.error?.message);
    }
    if (record.exit_status === "environment_error" || record.exit_status === "canceled") {
      const code = record.exit_status === "canceled" ? "E_CANCELLED" : "E_TERMINAL_ENVIRONMENT";
      return a.infra(code, record.error?.message ?? `the episode ended ${record.exit_status}`, facts);
    }
    let verdict: VerdictOutcome;
    try {
      verdict = await judge(a, env);
    } catch (err) {
      return await verifierFailed(a, env, facts, err);
    }
    await writeFile(join(artifacts, "verifier.log"), verdict.verifierOutput);
    return judgedRow(a, facts, verdict);
  } finally {
    await env.close();
  }
}
