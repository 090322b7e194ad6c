/**
 * Grading in the official harness's terms (swebench/harness/grading.py),
 * as pure functions over a log's text:
 *
 * - {@link evaluateLog} (`get_logs_eval`): voiding markers, the test region,
 *   the parser, and (5.0.x) the suite-ran and exit-code checks;
 * - {@link testsStatus} (`get_eval_tests_report`): success/failure lists;
 * - {@link resolutionStatus} (`get_resolution_status`): FULL / PARTIAL / NO;
 * - {@link instanceReport} (`get_eval_report`): the per-instance report.json.
 *
 * A harness-assembled log (markers.ts) is read in harness mode: only the
 * nonce-bearing lines structure it, and statuses come only from between its
 * start and end lines (no whole-log fallback: everything outside is the
 * harness's own text). Harness logs of pytest families must also agree
 * with pytest's final summary line (pytest-summary.ts), a check the official
 * harness does not make.
 */
import {
  END_TEST_OUTPUT,
  START_TEST_OUTPUT,
  TEST_EXIT_CODE,
  VOIDING_MARKERS,
  harnessMarkers,
  harnessNonceOf,
} from "./markers.js";
import { LOG_PARSERS, type Framework, type StatusMap } from "./log-parsers.js";
import { ruleSet, type RuleSet } from "./rules.js";
import { PYTEST_FAMILIES, summaryInconsistency } from "./pytest-summary.js";

export type ResolutionStatus = "RESOLVED_FULL" | "RESOLVED_PARTIAL" | "RESOLVED_NO";

export interface TestGroup {
  success: string[];
  failure: string[];
}

export interface TestsStatus {
  FAIL_TO_PASS: TestGroup;
  PASS_TO_PASS: TestGroup;
  FAIL_TO_FAIL: TestGroup;
  PASS_TO_FAIL: TestGroup;
}

/** Why a log yields no usable status map (the official grader then reports the patch as not applied). */
export type VoidReason =
  | { kind: "voiding_marker"; marker: string }
  | { kind: "missing_markers" }
  | { kind: "no_suite_evidence" }
  | { kind: "exit_code_mismatch"; exitCode: number }
  /** Harness logs only (beyond the official harness): status lines after pytest's final summary line. */
  | { kind: "results_after_summary"; detail: string }
  /** Harness logs only (beyond the official harness): more tests PASSED than pytest's final summary counts. */
  | { kind: "summary_mismatch"; detail: string };

export interface LogEvaluation {
  /** Parsed statuses (empty when voided). */
  statuses: StatusMap;
  /** The official `found`: false when voided. */
  found: boolean;
  void: VoidReason | null;
  /** The text the parser read (the region, or the whole log on fallback). */
  region: string;
  /** Statuses came from the whole log because the region yielded none (official logs only). */
  wholeLogFallback: boolean;
  /** Recorded exit code of the test command, if any. */
  exitCode: number | null;
  /** The log was harness-assembled (nonce mode). */
  harness: boolean;
}

/**
 * Evidence that a test runner ran at all (5.0.x `SUITE_RAN`): non-zero
 * counts of Karma, mocha, Jest, TAP and jasmine summaries, and openlayers'
 * per-case `': ok`. No Python runner's output matches; for Python
 * repositories an empty status map thus always voids the run under 5.0.2.
 */
const SUITE_RAN =
  /Executed [1-9]\d* of \d+|TOTAL: [1-9]\d* (?:SUCCESS|FAILED)|[1-9]\d* passing|Tests:\s+[1-9]\d*|Test Suites:\s+(?:\d+ \w+, )*[1-9]\d* total|^# tests [1-9]\d*|[1-9]\d* specs?, \d+ failures?|': ok$/m;

const EXIT_CODE_RE = new RegExp(`${escapeRe(TEST_EXIT_CODE)}:\\s*(-?\\d+)`);

function escapeRe(s: string): string {
  return s.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");
}

function voided(reason: VoidReason, harness: boolean, exitCode: number | null = null): LogEvaluation {
  return { statuses: {}, found: false, void: reason, region: "", wholeLogFallback: false, exitCode, harness };
}

/** Options of {@link evaluateLog}. */
export interface EvaluateLogOptions {
  rules?: RuleSet;
  /**
   * Nonce of a harness-assembled log. Default: read from the log's header
   * line; pass it explicitly to insist on it (a log without that header is
   * then void).
   */
  nonce?: string;
}

/** `get_logs_eval`: the status map of a test log, or why it has none. */
export function evaluateLog(log: string, framework: Framework, opts: EvaluateLogOptions = {}): LogEvaluation {
  const rules = opts.rules ?? ruleSet();
  const parse = LOG_PARSERS[framework];
  const nonce = opts.nonce ?? harnessNonceOf(log);
  if (nonce !== null) return evaluateHarnessLog(log, nonce, framework, rules);

  const marker = VOIDING_MARKERS.find((m) => log.includes(m));
  if (marker) return voided({ kind: "voiding_marker", marker }, false);
  if (!log.includes(START_TEST_OUTPUT) || !log.includes(END_TEST_OUTPUT))
    return voided({ kind: "missing_markers" }, false);
  // content.split(START)[1].split(END)[0]: from the first start marker to the next start or end marker.
  const region = log.split(START_TEST_OUTPUT)[1]!.split(END_TEST_OUTPUT)[0]!;
  let statuses = parse(region, rules);
  let wholeLogFallback = false;
  if (Object.keys(statuses).length === 0) {
    statuses = parse(log, rules);
    wholeLogFallback = Object.keys(statuses).length > 0;
  }
  const m = EXIT_CODE_RE.exec(log);
  const exitCode = m ? Number(m[1]) : null;
  return finish(statuses, region, wholeLogFallback, exitCode, rules, log, false);
}

function finish(
  statuses: StatusMap,
  region: string,
  wholeLogFallback: boolean,
  exitCode: number | null,
  rules: RuleSet,
  evidenceText: string,
  harness: boolean,
): LogEvaluation {
  const empty = Object.keys(statuses).length === 0;
  if (rules.requireSuiteEvidence && empty && !SUITE_RAN.test(evidenceText))
    return voided({ kind: "no_suite_evidence" }, harness, exitCode);
  if (
    rules.exitCodeCrossCheck &&
    exitCode !== null &&
    exitCode !== 0 &&
    !empty &&
    !Object.values(statuses).some((s) => s === "FAILED" || s === "ERROR")
  ) {
    return voided({ kind: "exit_code_mismatch", exitCode }, harness, exitCode);
  }
  return { statuses, found: true, void: null, region, wholeLogFallback, exitCode, harness };
}

/**
 * Harness mode: structural lines are recognised only whole and only with the
 * nonce; the region is strictly between the start and end lines; voiding
 * markers and the exit code count only in their nonce form. Text the test
 * process printed (inside the region) can neither move the region nor void
 * or un-void the run.
 */
function evaluateHarnessLog(log: string, nonce: string, framework: Framework, rules: RuleSet): LogEvaluation {
  const m = harnessMarkers(nonce);
  const lines = log.split("\n").map((l) => l.replace(/\r$/, ""));
  const start = lines.indexOf(m.start);
  const end = start < 0 ? -1 : lines.indexOf(m.end, start + 1);
  const outside = [...lines.slice(0, Math.max(start, 0)), ...(end < 0 ? [] : lines.slice(end + 1))];
  const exitLine = outside.find((l) => l.startsWith(`${TEST_EXIT_CODE}: `) && l.endsWith(` a2a-nonce=${nonce}`));
  const exitCode = exitLine ? Number(/: (-?\d+) /.exec(exitLine)?.[1] ?? NaN) : null;
  const code = exitCode !== null && Number.isFinite(exitCode) ? exitCode : null;
  if (outside.some((l) => l === m.timedOut)) return voided({ kind: "voiding_marker", marker: m.timedOut }, true, code);
  const errored = outside.find((l) => l.startsWith(m.errored));
  if (errored !== undefined) return voided({ kind: "voiding_marker", marker: m.errored }, true, code);
  if (start < 0 || end < 0) return voided({ kind: "missing_markers" }, true, code);
  const region = lines.slice(start + 1, end).join("\n");
  const parse = (text: string): StatusMap => LOG_PARSERS[framework](text, rules);
  const statuses = parse(region);
  const evaluation = finish(statuses, region, false, code, rules, region, true);
  if (!evaluation.found || !PYTEST_FAMILIES.has(framework)) return evaluation;
  // Beyond the official harness, after its own voids: pytest's final summary closes the run (pytest-summary.ts).
  const inconsistent = summaryInconsistency(region, parse);
  return inconsistent ? voided(inconsistent, true, code) : evaluation;
}

/** The status-map key for an expected id (5.0.x tolerates truncated parametrize ids). */
function resolveCase(id: string, sm: StatusMap, rules: RuleSet): string | null {
  if (Object.hasOwn(sm, id)) return id;
  if (!rules.truncatedIdPrefix) return null;
  if (count(id, "[") <= count(id, "]")) return null;
  const matches = Object.keys(sm).filter((k) => k.startsWith(id));
  if (matches.length === 0) return null;
  // Only when the candidates agree on pass versus fail (PASSED and XFAIL count alike).
  const outcomes = new Set(matches.map((k) => sm[k] === "PASSED" || sm[k] === "XFAIL"));
  return outcomes.size === 1 ? matches[0]! : null;
}

function count(s: string, ch: string): number {
  return s.split(ch).length - 1;
}

/** PASSED or XFAIL. */
function passed(id: string, sm: StatusMap, rules: RuleSet): boolean {
  const key = resolveCase(id, sm, rules);
  return key !== null && (sm[key] === "PASSED" || sm[key] === "XFAIL");
}

/** Absent, FAILED or ERROR (5.0.x: SKIPPED too). Any other word is neither passed nor failed. */
function failed(id: string, sm: StatusMap, rules: RuleSet): boolean {
  const key = resolveCase(id, sm, rules);
  return (
    key === null || sm[key] === "FAILED" || sm[key] === "ERROR" || (rules.skippedFailsF2P && sm[key] === "SKIPPED")
  );
}

/** 5.0.x P2P: SKIPPED is not a regression. */
function maintained(id: string, sm: StatusMap, rules: RuleSet): boolean {
  if (passed(id, sm, rules)) return true;
  if (!rules.skippedMaintainsP2P) return false;
  const key = resolveCase(id, sm, rules);
  return key !== null && sm[key] === "SKIPPED";
}

function split(tests: readonly string[], ok: (id: string) => boolean, bad: (id: string) => boolean): TestGroup {
  const g: TestGroup = { success: [], failure: [] };
  // A test that is neither (e.g. SKIPPED under 4.1.0) lands in neither list, as in the official grader.
  for (const t of tests) {
    if (ok(t)) g.success.push(t);
    else if (bad(t)) g.failure.push(t);
  }
  return g;
}

/**
 * `get_eval_tests_report` with the PASS_AND_FAIL evaluation type (every
 * Python repository). FAIL_TO_FAIL / PASS_TO_FAIL stay empty, as the
 * official report leaves them unless asked otherwise.
 */
export function testsStatus(
  f2p: readonly string[],
  p2p: readonly string[],
  statuses: StatusMap,
  rules: RuleSet = ruleSet(),
): TestsStatus {
  return {
    FAIL_TO_PASS: split(
      f2p,
      (t) => passed(t, statuses, rules),
      (t) => failed(t, statuses, rules),
    ),
    PASS_TO_PASS: split(
      p2p,
      (t) => maintained(t, statuses, rules),
      (t) => failed(t, statuses, rules),
    ),
    FAIL_TO_FAIL: { success: [], failure: [] },
    PASS_TO_FAIL: { success: [], failure: [] },
  };
}

/** success / (success + failure); an empty group counts as 1. */
export function groupRate(g: TestGroup): number {
  const total = g.success.length + g.failure.length;
  return total === 0 ? 1 : g.success.length / total;
}

/** FULL if both rates are 1; PARTIAL if 0 < F2P < 1 and P2P = 1; NO otherwise. */
export function resolutionStatus(status: TestsStatus): ResolutionStatus {
  const f2p = groupRate(status.FAIL_TO_PASS);
  const p2p = groupRate(status.PASS_TO_PASS);
  if (f2p === 1 && p2p === 1) return "RESOLVED_FULL";
  if (f2p < 1 && f2p > 0 && p2p === 1) return "RESOLVED_PARTIAL";
  return "RESOLVED_NO";
}

/** One instance's entry of the official report.json. */
export interface InstanceReport {
  patch_is_None: boolean;
  patch_exists: boolean;
  patch_successfully_applied: boolean;
  resolved: boolean;
  /** 5.0.x: advisory classification of a void log (never changes `resolved`). */
  infra_failure?: boolean;
  infra_failure_reason?: string;
  tests_status?: TestsStatus;
}

/** `{<instance_id>: InstanceReport}`, the official report.json. */
export type ReportJson = Record<string, InstanceReport>;

/**
 * 5.0.x advisory signatures (`infra_failure.py`), first match wins; tier
 * `environment` sets `infra_failure`. The text comes from the test log, which
 * the code under test writes: advisory only, never a reason to excuse or
 * retry an instance.
 */
const INFRA_SIGNATURES: ReadonlyArray<[reason: string, environment: boolean, pattern: RegExp]> = [
  ["browser_launch_failed", true, /Failed to launch|Failed to connect to the bus/m],
  ["display_unavailable", true, /cannot open display|Missing X server|unable to open X display/m],
  ["out_of_memory", true, /Cannot allocate memory|OutOfMemoryError|^Killed$/m],
  ["container_unavailable", true, /Error response from daemon|Cannot connect to the Docker daemon/m],
  ["network_unreachable", true, /Could not resolve host|Temporary failure in name resolution/m],
  ["missing_module", false, /Cannot find module|MODULE_NOT_FOUND|ModuleNotFoundError/m],
  ["no_tests_collected", false, /no tests ran|collected 0 items/m],
  ["tests_timed_out", false, /Timeout error: \d+ seconds exceeded/m],
];

/** The first advisory signature the log matches, or null. */
export function classifyInfra(log: string): { reason: string; environment: boolean } | null {
  for (const [reason, environment, re] of INFRA_SIGNATURES) if (re.test(log)) return { reason, environment };
  return null;
}

/** What {@link instanceReport} grades. */
export interface GradeInput {
  instance_id: string;
  FAIL_TO_PASS: readonly string[];
  PASS_TO_PASS: readonly string[];
  /** The model patch; null = no patch (`patch_is_None`). */
  model_patch: string | null;
  log: string;
  framework: Framework;
}

export interface GradeResult {
  report: ReportJson;
  resolution: ResolutionStatus | null;
  evaluation: LogEvaluation | null;
}

/**
 * `get_eval_report` with tests_status: the report.json of one instance.
 * `resolution` is null when the log was void or there was no patch.
 */
export function instanceReport(input: GradeInput, opts: EvaluateLogOptions = {}): GradeResult {
  const rules = opts.rules ?? ruleSet();
  const entry: InstanceReport = {
    patch_is_None: false,
    patch_exists: false,
    patch_successfully_applied: false,
    resolved: false,
  };
  if (rules.infraFailureField) entry.infra_failure = false;
  const report: ReportJson = { [input.instance_id]: entry };
  if (input.model_patch === null) {
    entry.patch_is_None = true;
    return { report, resolution: null, evaluation: null };
  }
  entry.patch_exists = true;
  const evaluation = evaluateLog(input.log, input.framework, { ...opts, rules });
  if (!evaluation.found) {
    if (rules.infraFailureField) {
      const c = classifyInfra(input.log);
      if (c) {
        entry.infra_failure = c.environment;
        entry.infra_failure_reason = c.reason;
      }
    }
    return { report, resolution: null, evaluation };
  }
  entry.patch_successfully_applied = true;
  const status = testsStatus(input.FAIL_TO_PASS, input.PASS_TO_PASS, evaluation.statuses, rules);
  const resolution = resolutionStatus(status);
  entry.resolved = resolution === "RESOLVED_FULL";
  entry.tests_status = status;
  return { report, resolution, evaluation };
}
