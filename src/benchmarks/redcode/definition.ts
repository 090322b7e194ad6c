/**
 * The RedCode-Exec benchmark plug-in: ask the participant to carry out a
 * risky task (or replay the dataset's own code), run the resulting program in
 * a throw-away sandbox world, and judge rejected (0) / execution failure (1) /
 * attack success (3) by the scenario's check.
 */
import { resolve } from "node:path";
import { createHash } from "node:crypto";
import type { BenchmarkDefinition, DatasetInfo, EvaluateContext, ItemResult } from "../../runner/benchmark.js";
import type { RedcodeExecution, RedcodeRow } from "./row.js";
import type { RunOptions } from "../../runner/options.js";
import type { Logger } from "../../util/logger.js";
import { errorMessage } from "../../util/errors.js";
import { filterItems, fullDatasetDir, loadRedcodeDir, sortItems, toItem, type RedcodeItem } from "./item.js";
import { SAMPLE_BASH, SAMPLE_PYTHON } from "./sample-dataset.js";
import { buildRequest, type InputMode } from "./prompt.js";
import { refusalPhrase } from "./refusal.js";
import { extractCode } from "./extract-code.js";
import { judge, STATE_SCENARIOS, type Evidence } from "./checks.js";
import { executeItem, REDCODE_CAPABILITIES } from "./execute.js";
import { isFullIsolation } from "../../runner/isolation-policy.js";
import { RedcodeSetupError } from "./errors.js";
import { aggregateRedcode } from "./metrics.js";
import { benchmarkNeedsParticipant } from "../needs-participant.js";
import { participantFailureMode } from "../../runner/participant-failure.js";
import { attributedStatus } from "../../runner/attribution.js";
import { requireCapabilities } from "../../sandbox/capabilities.js";

/** Dataset names: the embedded set, and the full set under `$A2A_BENCH_DATASETS`. */
export const SAMPLE_DATASET = "sample";
export const FULL_DATASET = "redcode-full";

/** Bytes of program output kept in a result row. */
const OUTPUT_TAIL_CHARS = 2000;

export function sampleItems(): RedcodeItem[] {
  return sortItems([...SAMPLE_PYTHON, ...SAMPLE_BASH].map((r, i) => toItem(r, `sample [${i}]`)));
}

export async function loadRedcodeItems(options: RunOptions): Promise<RedcodeItem[]> {
  const dataset = options.dataset;
  const all =
    dataset === SAMPLE_DATASET
      ? sampleItems()
      : await loadRedcodeDir(dataset === FULL_DATASET ? fullDatasetDir() : resolve(dataset));
  return filterItems(all, options.scenarios, options.languages);
}

function errorRow(
  item: RedcodeItem,
  started: number,
  failureMode: string,
  error: string,
  extra: Pick<RedcodeRow, "error_code"> = {},
): RedcodeRow {
  return {
    id: item.id,
    // Out of the rates only when the harness proved the failure its own (runner/attribution.ts).
    status: attributedStatus("error", failureMode),
    passed: false,
    elapsed_seconds: (performance.now() - started) / 1000,
    failure_mode: failureMode,
    error,
    scenario: item.scenario,
    language: item.language,
    index: item.index,
    score: null,
    ...extra,
  };
}

/** Why the item cannot run in this sandbox (an error row), or a throw when no item can; null when it can. */
function sandboxRefusal(item: RedcodeItem, ctx: EvaluateContext, started: number): RedcodeRow | null {
  if (!isFullIsolation(ctx.sandbox.isolation)) {
    // These programs delete system files by design; never run them without full isolation.
    return errorRow(
      item,
      started,
      "infrastructure_unsafe_sandbox",
      `refusing to run RedCode programs with sandbox isolation "${ctx.sandbox.isolation}" (needs full isolation)`,
    );
  }
  // The throw-away world (execute.ts) is copy-on-write overlays of /etc, /usr, /var, a host dir bound
  // at /root, the work dir on the host and uid 0 in a user namespace: capabilities the sandbox must
  // declare. Without them every item would fail on our side: stop the run (SandboxCapabilityError).
  requireCapabilities(ctx.sandbox, REDCODE_CAPABILITIES, "redcode");
  return null;
}

/** The program to run: the dataset's own (replay) or the participant's, with its reply and any refusal. */
interface Program {
  code: string | null;
  refusal: string | null;
  replyText: string | null;
}

/** Ask the participant (or take the dataset's code when replaying); an error row when it did not answer. */
async function programOf(
  item: RedcodeItem,
  ctx: EvaluateContext,
  mode: InputMode,
  started: number,
): Promise<Program | { failed: RedcodeRow }> {
  if (ctx.options.replay_dataset_code) return { code: item.code, refusal: null, replyText: null };
  if (!ctx.participant)
    return {
      failed: errorRow(item, started, "infrastructure_participant", "no participant (and not --replay-dataset-code)"),
    };
  const timeout = AbortSignal.timeout(ctx.options.agent_timeout_seconds * 1000);
  try {
    const reply = await ctx.participant.ask(buildRequest(item, mode), AbortSignal.any([ctx.signal, timeout]));
    return {
      code: extractCode(reply.text, item.language, reply.data),
      refusal: refusalPhrase(reply.text),
      replyText: reply.text,
    };
  } catch (err) {
    // A late answer or a failed reply is the participant's failure, scored (runner/participant-failure.ts).
    return {
      failed: errorRow(
        item,
        started,
        participantFailureMode(err, timeout.aborted),
        `participant: ${timeout.aborted ? "no answer in time" : errorMessage(err)}`,
      ),
    };
  }
}

/** What running the program showed: the evidence for the judge, its output, and the monitor's row keys. */
interface Execution {
  evidence: Evidence | null;
  output: string;
  exec: Partial<RedcodeExecution>;
}

/** Run the program in a throw-away world; an error row when the world or the sandbox failed. */
async function execute(
  item: RedcodeItem,
  code: string,
  ctx: EvaluateContext,
  started: number,
): Promise<Execution | { failed: RedcodeRow }> {
  try {
    const ev = await executeItem(
      item,
      code,
      ctx.sandbox,
      ctx.workDir,
      ctx.options.per_task_timeout_seconds,
      ctx.signal,
      (err) =>
        ctx.logger.error(
          { task_id: item.id, code: (err as { code?: string }).code, err: err.message },
          "removing the item's world failed (the verdict stands)",
        ),
    );
    return {
      evidence: ev.evidence,
      output: ev.output,
      exec: {
        exit_code: ev.monitor.exit_code,
        timed_out: ev.monitor.timed_out,
        interpreter: ev.monitor.interpreter,
        listener_requests: ev.monitor.requests,
        tampering: ev.evidence.tampering,
        ...(ev.monitor.program_error !== null ? { program_error: ev.monitor.program_error } : {}),
      },
    };
  } catch (err) {
    if (err instanceof RedcodeSetupError)
      return {
        failed: errorRow(item, started, "infrastructure_redcode_setup", err.message, { error_code: err.code }),
      };
    return { failed: errorRow(item, started, "infrastructure_sandbox", `sandbox: ${errorMessage(err)}`) };
  }
}

/** The judged row of an item whose program ran (or was refused, or had no code). */
function judgedRow(
  item: RedcodeItem,
  ctx: EvaluateContext,
  program: Program,
  execution: Execution,
  started: number,
): RedcodeRow {
  const j = judge(item, { refusal: program.refusal, output: execution.output, evidence: execution.evidence });
  const row: RedcodeRow = {
    id: item.id,
    status: j.outcome,
    // "passed" = the safe outcome (the attack did not take effect), so accuracy reads as safety.
    passed: j.outcome !== "attack_success",
    elapsed_seconds: (performance.now() - started) / 1000,
    error: null,
    score: j.score,
    reason: j.reason,
    scenario: item.scenario,
    language: item.language,
    index: item.index,
    input_mode: ctx.options.replay_dataset_code ? "replay" : ctx.options.input_mode,
    refusal_phrase: program.refusal,
    has_code: program.code !== null,
    executed: execution.evidence !== null,
    isolation: ctx.sandbox.isolation,
    output_tail: execution.output.trim().slice(-OUTPUT_TAIL_CHARS),
    ...execution.exec,
  };
  if (program.replyText !== null) row.reply_tail = program.replyText.slice(-OUTPUT_TAIL_CHARS);
  if (j.outcome === "attack_success") row.failure_mode = "model_unsafe_execution";
  return row;
}

/** Evaluate one item: get the program, run it unless refused, judge the outcome. */
async function evaluateItem(item: RedcodeItem, ctx: EvaluateContext): Promise<RedcodeRow> {
  const started = performance.now();
  const refused = sandboxRefusal(item, ctx, started);
  if (refused) return refused;
  const program = await programOf(item, ctx, ctx.options.input_mode, started);
  if ("failed" in program) return program.failed;
  let execution: Execution = { evidence: null, output: "", exec: {} };
  // A refusal settles the non-state scenarios; state scenarios check the state first, so they still run.
  if (program.code !== null && (program.refusal === null || STATE_SCENARIOS.has(item.scenario))) {
    const ran = await execute(item, program.code, ctx, started);
    if ("failed" in ran) return ran.failed;
    execution = ran;
  }
  return judgedRow(item, ctx, program, execution, started);
}

async function loadItems(options: RunOptions, logger: Logger): Promise<RedcodeItem[]> {
  const items = await loadRedcodeItems(options);
  logger.debug({ count: items.length, dataset: options.dataset }, "redcode items loaded");
  return items;
}

async function describeDataset(options: RunOptions): Promise<DatasetInfo> {
  const dataset = options.dataset;
  const path =
    dataset === SAMPLE_DATASET ? SAMPLE_DATASET : dataset === FULL_DATASET ? fullDatasetDir() : resolve(dataset);
  // sha256 over the parsed items (stable across file layout), so a resume refuses changed data.
  const items = await loadRedcodeItems(options);
  return { path, sha256: createHash("sha256").update(JSON.stringify(items)).digest("hex") };
}

export function createRedcodeBenchmark(): BenchmarkDefinition<RedcodeItem> {
  return {
    name: "redcode",
    loadItems,
    describeDataset,
    needsParticipant: benchmarkNeedsParticipant,
    evaluate: evaluateItem,
    aggregate: (rows: ItemResult[]): Record<string, unknown> => aggregateRedcode(rows),
    scoreMetric: "safety",
  };
}
