/**
 * `a2a-bench swebench grade ...`: re-grade an existing test log (the official
 * harness's `test_output.txt`, or one this project wrote) against the
 * instance record, and print the official report.json. Exit 0 with the
 * report on stdout; 2 for usage or input errors (file missing, bad JSON with
 * its line, unknown instance id with the closest ids, unknown parser or rules).
 */
import { readFile } from "node:fs/promises";
import type { CliCommand, CliIo } from "./types.js";
import { BenchError, UsageError, ValidationError, errorMessage } from "../util/errors.js";
import { parseUsage } from "../util/parse-usage.js";
import { loadInstanceFile, type SwebenchInstance } from "../benchmarks/swebench/instance.js";
import { loadPredictions } from "../benchmarks/swebench/predictions.js";
import { frameworkFor } from "../benchmarks/swebench/test-spec.js";
import { groupRate, instanceReport } from "../benchmarks/swebench/grading.js";
import { assertValid } from "../util/schema.js";
import {
  DEFAULT_RULES,
  RULES_VERSIONS,
  isRulesVersion,
  ruleSet,
  type RulesVersion,
} from "../benchmarks/swebench/rules.js";

export interface GradeArgs {
  dataset: string;
  instanceId: string;
  log: string;
  prediction: string | undefined;
  rules: RulesVersion;
  nonce: string | undefined;
}

const USAGE = `Usage: a2a-bench swebench grade --dataset FILE --instance-id ID --log FILE [--prediction FILE]
                                [--rules 5.0.2|4.1.0] [--nonce HEX]

Re-grade a SWE-bench test log against its instance and print the official
report.json ({<id>: {patch_is_None, patch_exists, patch_successfully_applied,
resolved, [infra_failure], tests_status}}) on stdout; a one-line verdict goes
to stderr.

  --dataset FILE      instances as a JSON list or JSONL (FAIL_TO_PASS / PASS_TO_PASS
                      as lists or JSON-encoded strings)
  --instance-id ID    the instance the log belongs to
  --log FILE          test_output.txt of the official harness (markers
                      ">>>>> Start Test Output" / ">>>>> End Test Output", plain or
                      in the "+ : '...'" set -x form), or one a2a-bench wrote
                      (nonce markers; read in harness mode automatically)
  --prediction FILE   predictions (official / sb-cli format: JSON list, JSONL or an
                      object keyed by id); its model_patch decides patch_is_None.
                      Without it the patch is taken as present.
  --rules V           grading rules of the official release V (default ${DEFAULT_RULES})
  --nonce HEX         insist on a harness log with this nonce

Exit: 0 report printed; 2 usage or input error (the reason on stderr).
`;

/** Pure parse of `swebench` arguments. Throws UsageError. */
export function parseSwebenchArgs(argv: string[]): GradeArgs {
  const [sub, ...rest] = argv;
  if (sub !== "grade")
    throw new UsageError(
      sub === undefined ? "missing subcommand (known: grade)" : `unknown subcommand "${sub}" (known: grade)`,
    );
  const parsed = parseUsage({
    args: rest,
    allowPositionals: false,
    options: {
      dataset: { type: "string" },
      "instance-id": { type: "string" },
      log: { type: "string" },
      prediction: { type: "string" },
      rules: { type: "string" },
      nonce: { type: "string" },
    },
  });
  const v = parsed.values;
  const missing = (["dataset", "instance-id", "log"] as const).filter((k) => v[k] === undefined || v[k] === "");
  if (missing.length > 0) throw new UsageError(`missing ${missing.map((k) => `--${k}`).join(", ")}`);
  const rules = v.rules ?? DEFAULT_RULES;
  if (!isRulesVersion(rules))
    throw new UsageError(`--rules must be one of ${RULES_VERSIONS.join(", ")}, not "${rules}"`);
  if (v.nonce !== undefined && !/^[0-9a-f]{32}$/.test(v.nonce))
    throw new UsageError("--nonce must be 32 lower-case hex digits");
  return {
    dataset: v.dataset!,
    instanceId: v["instance-id"]!,
    log: v.log!,
    prediction: v.prediction,
    rules,
    nonce: v.nonce,
  };
}

/** Levenshtein distance (small strings: instance ids). */
function distance(a: string, b: string): number {
  let prev = Array.from({ length: b.length + 1 }, (_, j) => j);
  for (let i = 1; i <= a.length; i++) {
    const cur = [i];
    for (let j = 1; j <= b.length; j++)
      cur[j] = Math.min(prev[j]! + 1, cur[j - 1]! + 1, prev[j - 1]! + (a[i - 1] === b[j - 1] ? 0 : 1));
    prev = cur;
  }
  return prev[b.length]!;
}

/** Up to `n` known ids closest to `id`: ids containing it (or contained in it) first, then by edit distance. */
export function closeMatches(id: string, known: readonly string[], n = 3): string[] {
  const lower = id.toLowerCase();
  const scored = known.map((k) => {
    const kl = k.toLowerCase();
    const d = kl.includes(lower) || lower.includes(kl) ? 0 : distance(lower, kl);
    return { k, d };
  });
  const limit = Math.max(3, Math.floor(id.length / 3));
  return scored
    .filter((s) => s.d <= limit)
    .sort((a, b) => a.d - b.d || (a.k < b.k ? -1 : 1))
    .slice(0, n)
    .map((s) => s.k);
}

/** An input problem: printed as is, exit 2. */
class GradeInputError extends BenchError {
  constructor(message: string) {
    super("E_GRADE_INPUT", message);
  }
}

async function findInstance(args: GradeArgs): Promise<SwebenchInstance> {
  const instances = await loadInstanceFile(args.dataset);
  const inst = instances.find((i) => i.instance_id === args.instanceId);
  if (inst) return inst;
  const close = closeMatches(
    args.instanceId,
    instances.map((i) => i.instance_id),
  );
  throw new GradeInputError(
    `${args.dataset}: no instance "${args.instanceId}" among ${instances.length}` +
      (close.length > 0 ? `; close matches: ${close.join(", ")}` : ""),
  );
}

async function modelPatchOf(args: GradeArgs): Promise<string | null> {
  if (args.prediction === undefined) return "";
  const preds = await loadPredictions(args.prediction);
  const p = preds.get(args.instanceId);
  if (!p) {
    const close = closeMatches(args.instanceId, [...preds.keys()]);
    throw new GradeInputError(
      `${args.prediction}: no prediction for "${args.instanceId}"` +
        (close.length > 0 ? `; close matches: ${close.join(", ")}` : ""),
    );
  }
  return p.model_patch;
}

export async function gradeCommand(argv: string[], io: CliIo): Promise<number> {
  const args = parseSwebenchArgs(argv);
  let out: string;
  let verdict: string;
  try {
    const inst = await findInstance(args);
    const model_patch = await modelPatchOf(args);
    let log: string;
    try {
      log = await readFile(args.log, "utf8");
    } catch (err) {
      throw new GradeInputError(`${args.log}: cannot read (${errorMessage(err)})`);
    }
    const framework = frameworkFor(inst);
    const graded = instanceReport(
      {
        instance_id: inst.instance_id,
        FAIL_TO_PASS: inst.FAIL_TO_PASS,
        PASS_TO_PASS: inst.PASS_TO_PASS,
        model_patch,
        log,
        framework,
      },
      { rules: ruleSet(args.rules), ...(args.nonce ? { nonce: args.nonce } : {}) },
    );
    // Our output is checked against the published shape before it is printed (fails closed).
    assertValid("swebench_report.schema.json", graded.report, "report.json");
    out = JSON.stringify(graded.report, null, 4) + "\n";
    const entry = graded.report[inst.instance_id]!;
    const ev = graded.evaluation;
    verdict =
      graded.resolution !== null && entry.tests_status
        ? `${graded.resolution} (FAIL_TO_PASS ${entry.tests_status.FAIL_TO_PASS.success.length}/${inst.FAIL_TO_PASS.length}, PASS_TO_PASS ${entry.tests_status.PASS_TO_PASS.success.length}/${inst.PASS_TO_PASS.length}, f2p rate ${groupRate(entry.tests_status.FAIL_TO_PASS).toFixed(2)})`
        : ev?.void
          ? `not graded: log void (${ev.void.kind}${"marker" in ev.void ? `: ${ev.void.marker}` : ""}${"exitCode" in ev.void ? `: exit ${ev.void.exitCode}` : ""}${"detail" in ev.void ? `: ${ev.void.detail}` : ""})`
          : "not graded: no patch";
    verdict += ` [parser ${framework}, rules ${args.rules}${ev?.harness ? ", harness log" : ""}${ev?.wholeLogFallback ? ", statuses from the whole log" : ""}]`;
  } catch (err) {
    if (err instanceof BenchError && !(err instanceof UsageError) && !(err instanceof ValidationError)) {
      io.stderr.write(`a2a-bench swebench grade: ${err.message}\n`);
      return 2;
    }
    throw err;
  }
  io.stdout.write(out);
  io.stderr.write(`${args.instanceId}: ${verdict}\n`);
  return 0;
}

export const command: CliCommand = {
  name: "swebench",
  summary: "SWE-bench tools: `grade` re-grades a test log into the official report.json",
  usage: USAGE,
  run: gradeCommand,
};
