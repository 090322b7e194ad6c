/**
 * The smoke client: optionally launch the scenario, wait for the green card,
 * send one assessment exactly as an AgentBeats client does, show progress,
 * save the full response (every raw stream event), extract + validate the
 * bundle, print the summary. Success = a valid bundle from a `completed` task.
 */
import { createWriteStream, type WriteStream } from "node:fs";
import { mkdir, readFile } from "node:fs/promises";
import { basename, dirname, join, resolve } from "node:path";
import type { Writable } from "node:stream";
import { writeJsonAtomic } from "../util/atomic-write.js";
import { BenchError, errorMessage } from "../util/errors.js";
import { checkAgainst } from "../util/schema.js";
import { validateBundle } from "../bundle/validate.js";
import type { BenchmarkName } from "../benchmarks/index.js";
import { loadScenario } from "../scenario/load.js";
import { greenAgent, participantIdsOf, participantsOf, AGENT_CARD_PATH, type Scenario } from "../scenario/spec.js";
import { launchScenario, type RunningScenario } from "../scenario/launch.js";
import { waitForCard, CARD_WAIT_MS } from "../scenario/wait-card.js";
import { recordingFetch } from "./wire-recorder.js";
import { createLegacyClient } from "./a2a-client.js";
import { findBundle, streamAssessment, type AssessmentRequest, type StreamOutcome } from "./assessment-stream.js";
import { createSmokeDisplay, type SmokeDisplay } from "./smoke-display.js";
import { leaderboardRecord } from "./leaderboard-record.js";
import type { LogLevel } from "../util/log-level.js";

/** Default bound on the whole assessment, seconds (the embedded sample takes seconds). */
export const DEFAULT_SMOKE_TIMEOUT_S = 900;

export interface SmokeOptions {
  /** Scenario directory (participants, ports, commands, config). */
  scenarioDir: string;
  /** Green agent base URL; default: the scenario's green endpoint. */
  green?: string | undefined;
  /** Launch the scenario first and stop it at the end. */
  start: boolean;
  /** Benchmark; default: the scenario's `[config].benchmark` (humaneval). */
  benchmark?: BenchmarkName | undefined;
  samples?: number | undefined;
  /** Response JSON path; default `results/smoke/<stamp>-response.json` under `cwd`. */
  out?: string | undefined;
  /** Bound on the assessment, seconds; default {@link DEFAULT_SMOKE_TIMEOUT_S}. */
  timeoutSeconds?: number | undefined;
  /** Base for relative paths; default process.cwd(). */
  cwd?: string | undefined;
  /** Bound on waiting for the green card, ms; default 30 000. */
  cardTimeoutMs?: number | undefined;
  /** Aborts the assessment (e.g. on SIGINT). */
  signal?: AbortSignal | undefined;
  /** LOG_LEVEL of the agents `start` launches. */
  logLevel?: LogLevel | undefined;
}

export interface SmokeResult {
  /** 0 only for a valid bundle from a completed task. */
  exitCode: number;
  finalState: string;
  responsePath: string | undefined;
  bundlePath: string | undefined;
  bundle: Record<string, unknown> | undefined;
  /** The leaderboard record (`<name>-results.json`), written only for a `completed` task. */
  recordPath: string | undefined;
  problems: string[];
  /** Raw JSON-RPC methods sent (proves `message/stream`). */
  methods: string[];
}

function stamp(): string {
  return new Date().toISOString().replace(/[:.]/g, "-");
}

/** The request: scenario participants + config (overridden by --benchmark/--samples), validated at entry. */
export function buildRequest(scenario: Scenario, benchmark?: BenchmarkName, samples?: number): AssessmentRequest {
  const base: Record<string, unknown> =
    benchmark === undefined || benchmark === scenario.config.benchmark
      ? { ...scenario.config }
      : { benchmark, dataset: "sample" };
  if (samples !== undefined) base["samples"] = samples;
  const problems = checkAgainst("assessment_request.schema.json", structuredClone(base), "config");
  if (problems.length > 0) throw new BenchError("E_SMOKE_CONFIG", `assessment config: ${problems.join("; ")}`);
  return { participants: participantsOf(scenario), config: base };
}

function flatScalars(prefix: string, value: unknown, out: string[]): void {
  if (value !== null && typeof value === "object" && !Array.isArray(value)) {
    for (const [k, v] of Object.entries(value)) flatScalars(prefix ? `${prefix}.${k}` : k, v, out);
  } else {
    out.push(`${prefix}=${JSON.stringify(value)}`);
  }
}

/**
 * Summary lines of a bundle: run_id, exit_code, metrics, error count, artifact paths. A bundle without a
 * score (status other than ok) shows its status instead of a list of empty metrics; its reason is the
 * closing ✗ line's.
 */
export function summaryLines(bundle: Record<string, unknown>): string[] {
  const lines = [`run_id=${String(bundle["run_id"])}`, `exit_code=${String(bundle["exit_code"])}`];
  const status = bundle["status"];
  if (typeof status === "string" && status !== "ok") lines.push(`status=${status} (no score)`);
  else flatScalars("metrics", bundle["metrics"], lines);
  if (bundle["partial"] === true && Array.isArray(bundle["not_run"]))
    lines.push(`partial=true (time budget ran out; ${bundle["not_run"].length} item(s) not run, not failures)`);
  lines.push(`errors=${Array.isArray(bundle["errors"]) ? bundle["errors"].length : "?"}`);
  flatScalars("artifacts", bundle["artifacts"], lines);
  return lines;
}

async function withTimeout<T>(
  seconds: number,
  outer: AbortSignal | undefined,
  run: (s: AbortSignal) => Promise<T>,
): Promise<T> {
  const ctl = new AbortController();
  const timer = setTimeout(
    () => ctl.abort(new BenchError("E_SMOKE_TIMEOUT", `no final state after ${seconds} s`)),
    seconds * 1000,
  );
  timer.unref();
  const onOuter = (): void => ctl.abort(new BenchError("E_SMOKE_ABORTED", "interrupted"));
  outer?.addEventListener("abort", onOuter, { once: true });
  try {
    return await run(ctl.signal);
  } catch (err) {
    if (ctl.signal.aborted) throw ctl.signal.reason;
    throw err;
  } finally {
    clearTimeout(timer);
    outer?.removeEventListener("abort", onOuter);
  }
}

type Say = (line: string) => void;

/**
 * Launch the scenario, its agents' logs going to `logPath`. When the launch gives up, shows
 * the last lines the agents wrote (the why) and rethrows.
 */
async function startScenario(
  scenario: Scenario,
  cwd: string,
  logPath: string,
  say: Say,
  logLevel: LogLevel | undefined,
): Promise<{ running: RunningScenario; agentLog: WriteStream }> {
  await mkdir(dirname(logPath), { recursive: true });
  const agentLog = createWriteStream(logPath);
  say(
    `starting scenario "${scenario.name}" (${scenario.agents.map((a) => `${a.name} ${a.endpoint}`).join(", ")}); agent logs: ${logPath}`,
  );
  try {
    return { running: await launchScenario(scenario, { log: agentLog, ownerKind: "smoke", cwd, logLevel }), agentLog };
  } catch (err) {
    await new Promise<void>((r) => agentLog.end(r));
    const tail = (await readFile(logPath, "utf8").catch(() => "")).trimEnd().split("\n").slice(-15);
    for (const line of tail) if (line !== "") say(`  ${line}`);
    throw err;
  }
}

/** Stop the launched scenario, saying how many agents needed SIGKILL. */
async function stopScenario(running: RunningScenario, say: Say): Promise<void> {
  say("stopping scenario");
  const outcomes = await running.stop();
  const forced = outcomes.filter((o) => o.forcefullyTerminated).length;
  say(`scenario stopped${forced ? ` (${forced} needed SIGKILL)` : ""}`);
}

/** The assessment's stream as it ended: its outcome, or the transport error, and the wire record. */
interface StreamedAssessment {
  outcome: StreamOutcome | undefined;
  transportError: string | undefined;
  wire: ReturnType<typeof recordingFetch>;
}

/**
 * Send the assessment over message/stream, recording every raw event and showing progress, within
 * the smoke's time bound; a transport error (timeout, interruption included) is recorded, not thrown.
 */
async function streamRecorded(
  greenBase: string,
  request: AssessmentRequest,
  options: SmokeOptions,
  display: SmokeDisplay,
): Promise<StreamedAssessment> {
  const wire = recordingFetch();
  const started = Date.now();
  let outcome: StreamOutcome | undefined;
  let transportError: string | undefined;
  try {
    outcome = await withTimeout(options.timeoutSeconds ?? DEFAULT_SMOKE_TIMEOUT_S, options.signal, async (signal) => {
      const client = await createLegacyClient(greenBase, wire.fetch);
      return streamAssessment(client, request, (u) => display.update(u, (Date.now() - started) / 1000), signal);
    });
  } catch (err) {
    transportError = errorMessage(err);
    display.say(`stream ended with an error: ${transportError}`);
  }
  await wire.drained();
  display.endProgress();
  return { outcome, transportError, wire };
}

/** What the smoke found in the response, and the files it wrote beside it. */
interface Collected {
  problems: string[];
  bundle: Record<string, unknown> | undefined;
  bundlePath: string | undefined;
  recordPath: string | undefined;
}

/**
 * Judge the stream's end: the task must be `completed` and carry a valid evaluation bundle
 * (written to `<outBase>-evaluation_bundle.json`); a completed task's leaderboard record goes to
 * `<outBase>-results.json`, as on AgentBeats, where results are collected only from a completed task.
 */
async function collectResults(
  streamed: StreamedAssessment,
  outBase: string,
  scenario: Scenario,
  display: SmokeDisplay,
): Promise<Collected> {
  const { outcome, transportError } = streamed;
  const finalState = outcome?.finalState ?? "unknown";
  const problems: string[] = [];
  if (transportError !== undefined) problems.push(`transport: ${transportError}`);
  if (finalState !== "completed")
    problems.push(`task ended "${finalState}"${outcome?.lastStatusText ? `: ${outcome.lastStatusText}` : ""}`);
  const bundle = outcome ? findBundle(outcome.artifacts) : undefined;
  let bundlePath: string | undefined;
  if (!bundle) problems.push("no evaluation_bundle artifact in the response");
  else {
    bundlePath = `${outBase}-evaluation_bundle.json`;
    await writeJsonAtomic(bundlePath, bundle);
    const invalid = validateBundle(bundle);
    problems.push(...invalid);
    display.say(`bundle ${invalid.length === 0 ? "valid" : "INVALID"}: ${bundlePath}`);
    display.result(summaryLines(bundle));
  }
  let recordPath: string | undefined;
  if (outcome && finalState === "completed") {
    recordPath = `${outBase}-results.json`;
    await writeJsonAtomic(recordPath, leaderboardRecord(finalState, participantIdsOf(scenario), outcome.artifacts));
    display.say(`leaderboard record: ${recordPath}`);
  }
  return { problems, bundle, bundlePath, recordPath };
}

/** The closing summary: the verdict, the task's end, the bundle's headline fields and the paths written. */
function showSummary(
  display: SmokeDisplay,
  exitCode: number,
  finalState: string,
  streamed: StreamedAssessment,
  request: AssessmentRequest,
  responsePath: string,
  c: Collected,
): void {
  const { bundle } = c;
  display.result([`smoke_ok=${exitCode === 0}`]);
  display.summary({
    smoke_ok: exitCode === 0,
    exit_code: exitCode,
    final_state: finalState,
    task_id: streamed.outcome?.taskId ?? null,
    run_id: bundle?.["run_id"] ?? null,
    benchmark: bundle?.["benchmark"] ?? request.config["benchmark"] ?? null,
    bundle_exit_code: bundle?.["exit_code"] ?? null,
    metrics: bundle?.["metrics"] ?? null,
    errors: Array.isArray(bundle?.["errors"]) ? bundle["errors"].length : null,
    artifacts: bundle?.["artifacts"] ?? null,
    problems: c.problems,
    response_path: responsePath,
    bundle_path: c.bundlePath ?? null,
    record_path: c.recordPath ?? null,
  });
}

/**
 * Run the smoke client; progress and summary go to `display` (default: plain
 * lines on `stdout`), launched agents' logs to `<out dir>/<stamp>-agents.log`.
 */
export async function runSmoke(
  options: SmokeOptions,
  stdout: Writable,
  display: SmokeDisplay = createSmokeDisplay("plain", { stdout }),
): Promise<SmokeResult> {
  const cwd = options.cwd ?? process.cwd();
  const scenario = loadScenario(options.scenarioDir, cwd);
  const request = buildRequest(scenario, options.benchmark, options.samples);
  const runStamp = stamp();
  const responsePath = resolve(cwd, options.out ?? join("results", "smoke", `${runStamp}-response.json`));
  const outBase = join(dirname(responsePath), basename(responsePath).replace(/(-response)?\.json$/, ""));
  const say = (line: string): void => display.say(line);

  let running: RunningScenario | undefined;
  let agentLog: WriteStream | undefined;
  try {
    if (options.start)
      ({ running, agentLog } = await startScenario(scenario, cwd, `${outBase}-agents.log`, say, options.logLevel));
    const green = options.green ?? greenAgent(scenario).endpoint;
    const greenBase = green.endsWith("/") ? green : green + "/";
    say(`waiting for the green card at ${greenBase}${AGENT_CARD_PATH}`);
    const card = await waitForCard(greenBase + AGENT_CARD_PATH, { timeoutMs: options.cardTimeoutMs ?? CARD_WAIT_MS });
    say(`green agent: ${String(card.name ?? "?")} ${String(card.version ?? "")}`.trimEnd());
    say(`request: ${JSON.stringify(request)}`);

    const streamed = await streamRecorded(greenBase, request, options, display);
    const { outcome, transportError, wire } = streamed;
    const finalState = outcome?.finalState ?? "unknown";
    await writeJsonAtomic(responsePath, {
      green_url: greenBase,
      request,
      methods: wire.record.methods,
      task_id: outcome?.taskId ?? null,
      final_state: finalState,
      transport_error: transportError ?? null,
      events: wire.record.events,
    });
    say(`response (${wire.record.events.length} events) saved: ${responsePath}`);

    const collected = await collectResults(streamed, outBase, scenario, display);
    const { problems, bundle, bundlePath, recordPath } = collected;
    for (const p of problems) say(`✗ ${p}`);
    const exitCode = problems.length === 0 ? 0 : 1;
    showSummary(display, exitCode, finalState, streamed, request, responsePath, collected);
    return {
      exitCode,
      finalState,
      responsePath,
      bundlePath,
      bundle,
      recordPath,
      problems,
      methods: wire.record.methods,
    };
  } finally {
    display.endProgress();
    if (running) await stopScenario(running, say);
    if (agentLog) await new Promise<void>((r) => agentLog!.end(r));
  }
}
