/**
 * The RedCode-Exec benchmark plug-in: ask the participant to carry out a
 * risky task (or replay the dataset's own code), run the resulting program in
 * a throw-away sandbox world, and judge rejected (0) / execution failure (1) /
 * attack success (3) by the scenario's check.
 */
import { resolve } from "node:path";
import { createHash } from "node:crypto";
import type { BenchmarkDefinition, DatasetInfo, EvaluateContext, ItemResult } from "../../runner/benchmark.js";
import type { RunOptions } from "../../runner/options.js";
import type { Logger } from "../../util/logger.js";
import { errorMessage } from "../../util/errors.js";
import { filterItems, fullDatasetDir, loadRedcodeDir, sortItems, toItem, type RedcodeItem } from "./item.js";
import { SAMPLE_BASH, SAMPLE_PYTHON } from "./sample-dataset.js";
import { buildRequest, type InputMode } from "./prompt.js";
import { refusalPhrase } from "./refusal.js";
import { extractCode } from "./extract-code.js";
import { judge, STATE_SCENARIOS, type Evidence } from "./checks.js";
import { executeItem, SAFE_ISOLATION } from "./execute.js";
import { RedcodeSetupError } from "./errors.js";
import { aggregateRedcode } from "./metrics.js";
import { benchmarkNeedsParticipant } from "../needs-participant.js";
import { participantFailureMode } from "../../runner/participant-failure.js";
import { InfrastructureError } from "../../runner/infrastructure-error.js";

/** Dataset names: the embedded set, and the full set under `$A2A_BENCH_DATASETS`. */
export const SAMPLE_DATASET = "sample";
export const FULL_DATASET = "redcode-full";

/** Bytes of program output kept in a result row. */
const OUTPUT_TAIL_CHARS = 2000;

export function sampleItems(): RedcodeItem[] {
  return sortItems([...SAMPLE_PYTHON, ...SAMPLE_BASH].map((r, i) => toItem(r, `sample [${i}]`)));
}

export async function loadRedcodeItems(options: RunOptions): Promise<RedcodeItem[]> {
  const dataset = options.dataset ?? SAMPLE_DATASET;
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
  extra: Record<string, unknown> = {},
): ItemResult {
  return {
    id: item.id,
    status: "error",
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

export function createRedcodeBenchmark(): BenchmarkDefinition<RedcodeItem> {
  return {
    name: "redcode",
    async loadItems(options: RunOptions, logger: Logger): Promise<RedcodeItem[]> {
      const items = await loadRedcodeItems(options);
      logger.debug({ count: items.length, dataset: options.dataset }, "redcode items loaded");
      return items;
    },
    async describeDataset(options: RunOptions): Promise<DatasetInfo> {
      const dataset = options.dataset ?? SAMPLE_DATASET;
      const path =
        dataset === SAMPLE_DATASET ? SAMPLE_DATASET : dataset === FULL_DATASET ? fullDatasetDir() : resolve(dataset);
      // sha256 over the parsed items (stable across file layout), so a resume refuses changed data.
      const items = await loadRedcodeItems(options);
      return { path, sha256: createHash("sha256").update(JSON.stringify(items)).digest("hex") };
    },
    needsParticipant: benchmarkNeedsParticipant,
    async evaluate(item: RedcodeItem, ctx: EvaluateContext): Promise<ItemResult> {
      const started = performance.now();
      const mode: InputMode = ctx.options.input_mode ?? "code";
      const replay = ctx.options.replay_dataset_code === true;
      if (!SAFE_ISOLATION.has(ctx.sandbox.isolation)) {
        // These programs delete system files by design; never run them without real isolation.
        return errorRow(
          item,
          started,
          "infrastructure_unsafe_sandbox",
          `refusing to run RedCode programs with sandbox isolation "${ctx.sandbox.isolation}" (needs bwrap or e2b)`,
        );
      }
      // The throw-away world is copy-on-write overlays (execute.ts), which only the local sandbox at bwrap
      // mounts, and only as root. Without them every item would fail on our side: stop the run, say why.
      if (ctx.sandbox.backend !== "local" || process.getuid?.() !== 0) {
        throw new InfrastructureError(
          "E_FIXTURES",
          `RedCode's fixtures cannot be set up with the ${ctx.sandbox.backend} sandbox${ctx.sandbox.backend === "local" ? " when not running as root" : ""} (they are copy-on-write overlays of /etc, /usr, /var)`,
          {
            fix: "run with the local sandbox at bwrap isolation, as root (in a container: --user 0)",
          },
        );
      }
      let code: string | null;
      let refusal: string | null = null;
      let replyText: string | null = null;
      if (replay) {
        code = item.code;
      } else {
        if (!ctx.participant)
          return errorRow(
            item,
            started,
            "infrastructure_participant",
            "no participant (and not --replay-dataset-code)",
          );
        const timeout = AbortSignal.timeout((ctx.options.agent_timeout_seconds ?? 120) * 1000);
        try {
          const reply = await ctx.participant.ask(buildRequest(item, mode), AbortSignal.any([ctx.signal, timeout]));
          replyText = reply.text;
          refusal = refusalPhrase(reply.text);
          code = extractCode(reply.text, item.language, reply.data);
        } catch (err) {
          // A late answer is the model's failure (scored); an unreachable participant is ours.
          return errorRow(
            item,
            started,
            participantFailureMode(err, timeout.aborted),
            `participant: ${timeout.aborted ? "no answer in time" : errorMessage(err)}`,
          );
        }
      }
      let evidence: Evidence | null = null;
      let output = "";
      let exec: Record<string, unknown> = {};
      // A refusal settles the non-state scenarios; state scenarios check the state first, so they still run.
      if (code !== null && (refusal === null || STATE_SCENARIOS.has(item.scenario))) {
        try {
          const ev = await executeItem(
            item,
            code,
            ctx.sandbox,
            ctx.workDir,
            ctx.options.per_task_timeout_seconds ?? 3,
            ctx.signal,
          );
          evidence = ev.evidence;
          output = ev.output;
          exec = {
            exit_code: ev.monitor.exit_code,
            timed_out: ev.monitor.timed_out,
            interpreter: ev.monitor.interpreter,
            listener_requests: ev.monitor.requests,
            tampering: ev.evidence.tampering,
            ...(ev.monitor.program_error !== null ? { program_error: ev.monitor.program_error } : {}),
          };
        } catch (err) {
          if (err instanceof RedcodeSetupError)
            return errorRow(item, started, "infrastructure_redcode_setup", err.message, { error_code: err.code });
          return errorRow(item, started, "infrastructure_sandbox", `sandbox: ${errorMessage(err)}`);
        }
      }
      const executed = evidence !== null;
      const j = judge(item, { refusal, output, evidence });
      const row: ItemResult = {
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
        input_mode: replay ? "replay" : mode,
        refusal_phrase: refusal,
        has_code: code !== null,
        executed,
        isolation: ctx.sandbox.isolation,
        output_tail: output.trim().slice(-OUTPUT_TAIL_CHARS),
        ...exec,
      };
      if (replyText !== null) row["reply_tail"] = replyText.slice(-OUTPUT_TAIL_CHARS);
      if (j.outcome === "attack_success") row.failure_mode = "model_unsafe_execution";
      return row;
    },
    aggregate(rows: ItemResult[]): Record<string, unknown> {
      return aggregateRedcode(rows);
    },
  };
}
