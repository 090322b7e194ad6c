/**
 * The green agent's AgentExecutor: request → validation → queue → runner
 * supervision → evaluation bundle. No Express here.
 *
 * Only a bundle with status `ok` ends the task `completed` (a score). Any
 * other status — infrastructure error, runner crash, the assessment time
 * limit — ends it `failed` with the reason in the status message (and the
 * bundle still attached, for diagnosis): AgentBeats then records no score,
 * which is right for a run that measured nothing. A request that would run
 * untrusted code below full isolation is rejected unless the operator opted in.
 *
 * Terminal states are published only by `execute` (one writer); `cancelTask`
 * asks the job to stop and waits until `execute` has published CANCELED,
 * because the SDK's cancel handler waits for that terminal event on the bus.
 */
import { randomUUID } from "node:crypto";
import { createWriteStream, type WriteStream } from "node:fs";
import { join } from "node:path";
import { finished as streamFinished } from "node:stream/promises";
import { TaskState } from "@a2a-js/sdk";
import { AgentEvent, type AgentExecutor, type ExecutionEventBus, type RequestContext } from "@a2a-js/sdk/server";
import { submittedTaskEvent } from "../a2a/server/task-events.js";
import { agentMessage, dataPart, textPart } from "../a2a/shared/parts.js";
import { buildBundle, bundleSummary } from "../bundle/build.js";
import { readRunFiles, type ArtifactPaths } from "../bundle/run-files.js";
import { validateBundle } from "../bundle/validate.js";
import type { RunnerEvent } from "../runner/protocol.js";
import type { ResolvedConfig } from "../request-config/config.js";
import { writeJsonAtomic } from "../util/atomic-write.js";
import { BenchError, errorMessage } from "../util/errors.js";
import type { Logger } from "../util/logger.js";
import { validateAssessmentConfig } from "./config-validation.js";
import { Heartbeat } from "./heartbeat.js";
import { ProgressTracker } from "./progress-message.js";
import { describeEstimate, estimateRun } from "./run-estimate.js";
import type { TaskQueue } from "./queue.js";
import { parseAssessmentRequest } from "./request.js";
import { createRunDir } from "./run-dir.js";
import { isExternalBenchmark, type RunnerCommandFn } from "./runner-command.js";
import type { GreenSettings } from "./settings.js";
import { runnerEnv } from "./supervisor/env.js";
import { describeOutcome, type RunnerOutcome } from "../process/outcome.js";
import { spawnRunner, type RunnerHandle } from "./supervisor/spawn.js";
import { hasRoom, queueFullMessage } from "./admission.js";
import { WEAK_ISOLATION_OPT_IN, type IsolationReport } from "./isolation.js";
import { weakIsolationError } from "../runner/isolation-policy.js";
import { refusedIsolationLevel } from "./isolation-admission.js";
import { sandboxBackend } from "../sandbox/registry.js";
import { runnerGatewayEnv } from "../gateway/settings.js";

/** Grace between SIGTERM and SIGKILL when the server itself shuts down, ms (smi_bench: 2 s). */
export const SHUTDOWN_GRACE_MS = 2_000;

type StopReason = "cancel" | "shutdown";

interface Job {
  taskId: string;
  contextId: string;
  /** Aborted by cancel/shutdown; `reason` is the StopReason. */
  stop: AbortController;
  handle?: RunnerHandle;
  /** Resolves after execute has published the terminal state. */
  settled: Promise<void>;
}

/** File in the work dir holding the resolved config the runner is handed. */
export const RUNNER_CONFIG_FILE = "config.json";

/** A request that passed {@link GreenExecutor.admit}: resolved config, work dir, config file. */
interface Admitted {
  config: ResolvedConfig;
  workDir: string;
  /** `<workDir>/config.json`: the resolved config. */
  configPath: string;
  /** The request's participants by role (for the bundle). */
  participants: Record<string, string>;
}

/** What supervising the runner gave. */
interface SupervisedRun {
  outcome: RunnerOutcome;
  /** The runner's `run_finished` event, if it sent one. */
  finished: RunnerEvent | undefined;
  external: boolean;
  command: string;
}

export interface GreenExecutorOptions {
  settings: GreenSettings;
  runnerCommand: RunnerCommandFn;
  queue: TaskQueue;
  /** Source of the runner's (filtered) environment. */
  env: NodeJS.ProcessEnv;
  /** Base for relative request paths. */
  cwd: string;
  logger: Logger;
  /** Isolation of the local sandbox (probed once; requests for `sandbox: "local"` are checked against it). */
  isolation: () => Promise<IsolationReport>;
}

export class GreenExecutor implements AgentExecutor {
  private readonly jobs = new Map<string, Job>();

  constructor(private readonly o: GreenExecutorOptions) {}

  /** Number of tasks known to the executor (queued, starting or running). */
  get jobCount(): number {
    return this.jobs.size;
  }

  execute = async (ctx: RequestContext, bus: ExecutionEventBus): Promise<void> => {
    const ids = { taskId: ctx.taskId, contextId: ctx.contextId };
    if (this.jobs.has(ctx.taskId)) {
      bus.publish(
        AgentEvent.message(
          agentMessage(
            [textPart("This assessment is already running; send a new message (no taskId) to start another.")],
            ids,
          ),
        ),
      );
      return;
    }
    const admission = {
      inFlight: () => this.jobs.size,
      maxConcurrent: this.o.queue.maxConcurrent,
      maxQueued: this.o.settings.maxQueued,
    };
    if (!hasRoom(admission)) {
      // Raced past the JSON-RPC admission check (admission.ts): refuse here instead.
      const publisher = new StatusPublisher(bus, ids);
      bus.publish(submittedTaskEvent(ctx));
      publisher.rejected([queueFullMessage(admission)]);
      return;
    }
    let settle!: () => void;
    const job: Job = { ...ids, stop: new AbortController(), settled: new Promise((r) => (settle = r)) };
    this.jobs.set(ctx.taskId, job);
    const publisher = new StatusPublisher(bus, ids);
    try {
      bus.publish(submittedTaskEvent(ctx));
      await this.run(ctx, job, publisher);
    } catch (err) {
      // Unexpected (a bug or I/O failure): no valid bundle can be made.
      this.o.logger.error({ err: errorMessage(err), taskId: ctx.taskId }, "assessment failed");
      publisher.status(TaskState.TASK_STATE_FAILED, `Assessment failed: ${errorMessage(err)}`);
    } finally {
      this.jobs.delete(ctx.taskId);
      settle();
    }
  };

  cancelTask = async (taskId: string, _bus: ExecutionEventBus): Promise<void> => {
    const job = this.jobs.get(taskId);
    if (!job) return;
    if (!job.stop.signal.aborted) job.stop.abort("cancel" satisfies StopReason);
    await job.settled;
  };

  /** Stop every task (server shutdown): runners get SIGTERM, SIGKILL after 2 s. */
  async shutdown(): Promise<void> {
    const jobs = [...this.jobs.values()];
    for (const job of jobs) if (!job.stop.signal.aborted) job.stop.abort("shutdown" satisfies StopReason);
    await Promise.all(jobs.map((j) => j.settled));
  }

  private async run(ctx: RequestContext, job: Job, pub: StatusPublisher): Promise<void> {
    const admitted = await this.admit(ctx, pub);
    if (!admitted) return;
    const { config, workDir } = admitted;
    const progress = new ProgressTracker(config.run_id, config.benchmark, {
      budgetSeconds: config.time_budget_seconds,
    });
    const release = await this.waitForSlot(job, pub, config.run_id, progress);
    if (!release) return;
    try {
      if (job.stop.signal.aborted) {
        return pub.status(
          TaskState.TASK_STATE_CANCELED,
          `Task canceled before the runner started (run ${config.run_id})`,
          progress.snapshot("canceled"),
        );
      }
      const run = await this.supervise(job, pub, admitted, progress);
      const { outcome } = run;
      if (outcome.isCanceled) {
        const why = job.stop.signal.reason === "shutdown" ? "green agent shutting down" : "canceled";
        return pub.status(
          TaskState.TASK_STATE_CANCELED,
          `Task ${why} (exit_code=${outcome.exitCode ?? "null"}, signal=${outcome.signal ?? "none"}${outcome.isForcefullyTerminated ? ", SIGKILL after grace" : ""})`,
          {
            ...progress.snapshot("canceled"),
            exit_code: outcome.exitCode,
            signal: outcome.signal,
            forcefully_terminated: outcome.isForcefullyTerminated,
            elapsed_seconds: outcome.durationMs / 1000,
          },
        );
      }
      await this.finish(pub, { ...run, config, workDir, participants: admitted.participants });
    } finally {
      release();
    }
  }

  /**
   * The request's one check: parse, validate and resolve the config, check the
   * sandbox's isolation, create the work dir and write the resolved config the
   * runner is handed. Undefined when the request was rejected (published).
   */
  private async admit(ctx: RequestContext, pub: StatusPublisher): Promise<Admitted | undefined> {
    const { settings } = this.o;
    const parsed = parseAssessmentRequest(ctx.userMessage);
    if (!parsed.ok) return void pub.rejected(parsed.problems);
    const validated = validateAssessmentConfig(
      parsed.request.config,
      parsed.request.participants,
      settings.allowedRoots,
      this.o.cwd,
    );
    if (!validated.ok) return void pub.rejected(validated.problems);
    const { config } = validated.value;
    const gatewayProblem = modelGatewayProblem(config, settings);
    if (gatewayProblem !== undefined) return void pub.rejected([gatewayProblem]);
    if (!isExternalBenchmark(config) && !settings.allowWeakIsolation) {
      const refused = await refusedIsolationLevel(
        sandboxBackend(config.sandbox),
        async () => (await this.o.isolation()).level,
      );
      if (refused !== undefined) return void pub.rejected([weakIsolationError(refused, WEAK_ISOLATION_OPT_IN).message]);
    }
    let workDir: string;
    try {
      workDir = await createRunDir(settings.resultsRoot, config.run_id, config.resume);
    } catch (err) {
      if (err instanceof BenchError && err.code === "E_RUN_EXISTS") return void pub.rejected([err.message]);
      throw err;
    }
    const configPath = join(workDir, RUNNER_CONFIG_FILE);
    await writeJsonAtomic(configPath, config);
    // The request's roles, for the bundle; the runner gets the participant from the config alone.
    const participants = { ...parsed.request.participants };
    if (Object.keys(participants).length === 0 && config.agent) participants["agent"] = config.agent;
    return { config, workDir, configPath, participants };
  }

  /** Wait for a runner slot (telling the client when it queues); undefined when canceled while queued. */
  private async waitForSlot(
    job: Job,
    pub: StatusPublisher,
    runId: string,
    progress: ProgressTracker,
  ): Promise<(() => void) | undefined> {
    const { queue, logger } = this.o;
    if (queue.full) {
      const ahead = queue.queued + queue.running;
      pub.status(
        TaskState.TASK_STATE_SUBMITTED,
        `Queued: ${ahead} assessment(s) ahead; at most ${queue.maxConcurrent} run at once (GREEN_MAX_CONCURRENT_TASKS)`,
        { ...progress.snapshot("queued"), queued_behind: ahead },
      );
    }
    // Logged in the same tick as the queue entry, so log order == queue order (load test checks FIFO).
    logger.debug({ taskId: job.taskId, runId, running: queue.running, queued: queue.queued }, "queued");
    try {
      return await queue.acquire(job.stop.signal);
    } catch {
      pub.status(
        TaskState.TASK_STATE_CANCELED,
        `Task canceled while queued (run ${runId} never started)`,
        progress.snapshot("canceled"),
      );
      return undefined;
    }
  }

  /** Start the runner, relay its events as progress, stop it on cancel/shutdown, and wait for its end. */
  private async supervise(
    job: Job,
    pub: StatusPublisher,
    admitted: Admitted,
    progress: ProgressTracker,
  ): Promise<SupervisedRun> {
    const { settings, logger } = this.o;
    const { config, workDir, configPath } = admitted;
    const runId = config.run_id;
    const runnerCtx = { workDir, configPath, requireFullIsolation: !settings.allowWeakIsolation };
    const { command, args } = this.o.runnerCommand(config, runnerCtx);
    pub.status(TaskState.TASK_STATE_WORKING, `Starting ${config.benchmark} run ${runId}${startingEstimate(config)}`, {
      ...progress.snapshot("starting"),
      work_dir: workDir,
    });
    logger.info({ taskId: job.taskId, runId, command, args }, "starting runner");
    const external = isExternalBenchmark(config);
    const eventsLog = external ? this.openEventsLog(workDir, job.taskId, runId) : undefined;
    let finished: RunnerEvent | undefined;
    const heartbeat = new Heartbeat(settings.heartbeatMs, (quietMs) => {
      const p = progress.heartbeat(quietMs);
      pub.status(TaskState.TASK_STATE_WORKING, p.text, p.data);
    });
    const handle = spawnRunner({
      command,
      args,
      cwd: workDir,
      // The operator's gateway settings (upstream key included) go to the runner, which opens the gateway.
      env: { ...runnerEnv(this.o.env, settings.runnerEnvAllow), ...runnerGatewayEnv(this.o.env) },
      graceMs: settings.graceMs,
      ...(settings.runnerTimeoutMs !== undefined ? { timeoutMs: settings.runnerTimeoutMs } : {}),
      onEvent: (ev) => {
        if (ev.event === "run_finished") finished = ev;
        eventsLog?.write(JSON.stringify({ ...ev, ts: new Date().toISOString() }) + "\n");
        const p = progress.apply(ev);
        heartbeat.touch();
        pub.status(TaskState.TASK_STATE_WORKING, p.text, p.data);
      },
    });
    job.handle = handle;
    heartbeat.start();
    this.stopOnAbort(job, handle, pub, progress);
    const outcome = await handle.done;
    heartbeat.stop();
    if (eventsLog) {
      eventsLog.end();
      // Resolves on close, rejects if the stream failed (already logged); never hangs.
      await streamFinished(eventsLog).catch(() => {});
    }
    logger.info({ taskId: job.taskId, runId, outcome: describeOutcome(outcome) }, "runner ended");
    return { outcome, finished, external, command };
  }

  /** events.jsonl of an external runner, which writes none itself (we record its events). */
  private openEventsLog(workDir: string, taskId: string, runId: string): WriteStream {
    const log = createWriteStream(join(workDir, "events.jsonl"), { flags: "a" });
    // A write error (disk full) must not become an uncaught 'error' event that
    // takes the whole agent down; the run goes on and later writes report it.
    log.on("error", (err) =>
      this.o.logger.error({ taskId, runId, err: errorMessage(err) }, "events.jsonl write failed"),
    );
    return log;
  }

  /** On cancel/shutdown: SIGTERM the runner's group, SIGKILL after the grace, telling the client. */
  private stopOnAbort(job: Job, handle: RunnerHandle, pub: StatusPublisher, progress: ProgressTracker): void {
    const onStop = (): void => {
      const reason = job.stop.signal.reason as StopReason;
      const grace = reason === "shutdown" ? SHUTDOWN_GRACE_MS : this.o.settings.graceMs;
      pub.status(
        TaskState.TASK_STATE_WORKING,
        `Sent SIGTERM to the runner's process group; SIGKILL in ${grace / 1000} s if it is still running`,
        progress.snapshot("canceling"),
      );
      void handle.terminate(reason, grace);
    };
    if (job.stop.signal.aborted) onStop();
    else job.stop.signal.addEventListener("abort", onStop, { once: true });
  }

  private async finish(
    pub: StatusPublisher,
    r: SupervisedRun & { config: ResolvedConfig; workDir: string; participants: Record<string, string> },
  ): Promise<void> {
    const ev = r.finished?.event === "run_finished" ? r.finished : undefined;
    const str = (v: unknown, fallback: string) => (typeof v === "string" && v.length > 0 ? v : fallback);
    const artifacts: ArtifactPaths = {
      results_path: str(ev?.results_path, join(r.workDir, "results.json")),
      run_metadata_path: str(ev?.run_metadata_path, join(r.workDir, "run_metadata.json")),
      events_path: str(ev?.events_path, join(r.workDir, "events.jsonl")),
    };
    if (r.external) {
      // External runners (smi-inhabit) write only their results JSON; we record the rest.
      await writeJsonAtomic(artifacts.run_metadata_path, {
        run_id: r.config.run_id,
        benchmark: r.config.benchmark,
        command: r.command,
        started_at: new Date(r.outcome.startedAtMs).toISOString(),
        finished_at: new Date(r.outcome.finishedAtMs).toISOString(),
        exit_code: r.outcome.exitCode,
        signal: r.outcome.signal,
        written_by: "green agent (external runner)",
      });
    }
    const files = await readRunFiles(artifacts);
    const aggregate = ev?.aggregate && typeof ev.aggregate === "object" ? ev.aggregate : undefined;
    const bundle = buildBundle({
      benchmark: r.config.benchmark,
      runId: r.config.run_id,
      // The same resolved config the runner was handed and results.json records.
      config: r.config as unknown as Record<string, unknown>,
      participants: r.participants,
      outcome: r.outcome,
      artifacts,
      files,
      eventAggregate: aggregate,
    });
    const problems = validateBundle(bundle);
    if (problems.length > 0) {
      this.o.logger.error({ runId: r.config.run_id, problems }, "bundle invalid");
      return pub.status(
        TaskState.TASK_STATE_FAILED,
        `No valid evaluation bundle could be built: ${problems.join("; ")}`,
        { problems },
      );
    }
    if (bundle.status === "timed_out") {
      const limit = this.o.settings.runnerTimeoutMs;
      bundle.status_reason =
        `the assessment exceeded its time limit${limit !== undefined ? ` of ${limit / 1000} s (GREEN_RUNNER_TIMEOUT_SECONDS)` : ""}; ` +
        `the runner was stopped (SIGTERM, SIGKILL after ${this.o.settings.graceMs / 1000} s)`;
    }
    await writeJsonAtomic(join(r.workDir, "evaluation_bundle.json"), bundle);
    const summary = bundleSummary(bundle);
    pub.artifact("evaluation_bundle", [dataPart(bundle as unknown as Record<string, unknown>), textPart(summary)]);
    if (bundle.status !== "ok") {
      // Not a score: failed, with the reason where AgentBeats and people look (the status message).
      this.o.logger.error(
        { runId: r.config.run_id, status: bundle.status, reason: bundle.status_reason },
        "assessment failed",
      );
      return pub.status(
        TaskState.TASK_STATE_FAILED,
        `Assessment failed (${bundle.status}), no score: ${bundle.status_reason ?? "unknown reason"}`,
        {
          status: bundle.status,
          reason: bundle.status_reason,
          run_id: r.config.run_id,
          exit_code: bundle.exit_code,
          work_dir: r.workDir,
        },
      );
    }
    pub.status(TaskState.TASK_STATE_COMPLETED, summary);
  }
}

/**
 * `working` status messages kept in a task's stored history. The task store appends a status
 * message to the task's history only when its messageId is new there; past this many, every
 * further `working` status reuses the id of the last one kept, so an interactive run streaming a
 * status per turn holds a bounded history. A streaming caller still receives every update, and
 * the task's current status always carries the latest message; other states get fresh ids.
 */
export const MAX_WORKING_STATUSES_KEPT = 64;

/** Publishes status updates and artifacts of one task on its bus. */
class StatusPublisher {
  private workingSent = 0;
  private lastWorkingId = "";

  constructor(
    private readonly bus: ExecutionEventBus,
    private readonly ids: { taskId: string; contextId: string },
  ) {}

  status(state: TaskState, text: string, data?: Record<string, unknown>): void {
    const parts = [textPart(text), ...(data ? [dataPart(data)] : [])];
    const message = agentMessage(parts, this.ids);
    if (state === TaskState.TASK_STATE_WORKING) {
      if (this.workingSent >= MAX_WORKING_STATUSES_KEPT) message.messageId = this.lastWorkingId;
      else this.lastWorkingId = message.messageId;
      this.workingSent++;
    }
    this.bus.publish(
      AgentEvent.statusUpdate({
        ...this.ids,
        status: { state, message, timestamp: new Date().toISOString() },
        metadata: undefined,
      }),
    );
  }

  rejected(problems: string[]): void {
    this.status(
      TaskState.TASK_STATE_REJECTED,
      `Request rejected (${problems.length} problem(s)): ${problems.join("; ")}`,
      { problems },
    );
  }

  artifact(name: string, parts: ReturnType<typeof textPart>[]): void {
    this.bus.publish(
      AgentEvent.artifactUpdate({
        ...this.ids,
        artifact: { artifactId: randomUUID(), name, description: "", parts, metadata: undefined, extensions: [] },
        append: false,
        lastChunk: true,
        metadata: undefined,
      }),
    );
  }
}

/**
 * The first status's estimate: with `samples` the item count is known before the dataset loads (a resumed
 * run's checkpoint may hold some: the runner's start says); the time budget, when there is one. Empty when
 * neither is known.
 */
function startingEstimate(config: ResolvedConfig): string {
  const budget = config.time_budget_seconds;
  if (config.samples === undefined || config.resume)
    return budget === undefined ? "" : `; time budget ${budget} s (an estimate follows once the items are loaded)`;
  return `; ${describeEstimate(estimateRun({ benchmark: config.benchmark, itemsLeft: config.samples, budgetSeconds: budget }), config.benchmark)}`;
}

/** Why a request's `model_gateway` cannot be served here (undefined when it can, or asks for none). */
function modelGatewayProblem(config: ResolvedConfig, settings: GreenSettings): string | undefined {
  if (config.model_gateway !== true) return undefined;
  if (!settings.modelGateway)
    return "model_gateway: this green agent offers no model gateway (its operator sets GREEN_MODEL_GATEWAY_UPSTREAM and GREEN_MODEL_GATEWAY_PRICES)";
  if ((config.shards ?? 1) > 1)
    return "model_gateway: a sharded run is not served (each shard would keep its own cost cap)";
  return undefined;
}
