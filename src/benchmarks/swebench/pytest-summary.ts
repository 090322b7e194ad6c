/**
 * pytest's terminal summary as the closing line of a run, and the
 * consistency of a log's per-test statuses with it. Not part of the official
 * harness: applied only to logs this harness assembled (grading.ts, harness
 * mode), to pytest-family parsers.
 *
 * pytest ends a run with one line `==== 2 failed, 5 passed, 1 warning in
 * 0.12s ====` (older releases: `in 0.12 seconds`), printed after its `-rA`
 * short summary; it prints nothing after it. The code under test shares the
 * process and its stdout, so it can print `PASSED <id>` lines after that line
 * (an exit handler), which the official parsers take as each test's last
 * status. Three checks catch that:
 *
 * - status lines after the last summary line (`results_after_summary`);
 * - more summary lines than `test session starts` lines, when the log has
 *   any (`results_after_summary`: a second summary with no run behind it,
 *   printed to close forged lines; pytester runs shown in captured output
 *   bring their own start line);
 * - more tests PASSED in the outermost session than the last summary counts
 *   as passed (`summary_mismatch`; captured output pytest reprints, and
 *   sessions nested in it, are left out of the count).
 *
 * A region with no summary line is left alone (official logs, `-q` runs, a
 * process killed before its summary). What this cannot catch: the code under
 * test printing a whole consistent pytest tail itself and ending the process
 * before pytest's own summary, or patching pytest so its own summary agrees:
 * in log-based grading the tested code owns the log.
 */
import type { Framework, StatusMap } from "./log-parsers.js";

/** Parser families whose logs are pytest terminal output. */
export const PYTEST_FAMILIES: ReadonlySet<Framework> = new Set<Framework>([
  "parse_log_pytest",
  "parse_log_pytest_options",
  "parse_log_pytest_v2",
  "parse_log_matplotlib",
  "parse_log_seaborn",
  "a2a_pytest_verbose",
]);

const COLOUR = /\x1b\[[0-9;]*m|\[\d+m/g;
/** `N word` parts (`1 passed`, `2 errors`, `1 pytest-warnings`), or `no tests ran`, then the duration. */
const SUMMARY_BODY =
  /^(?:no tests ran|\d+ [a-z-]+(?:, \d+ [a-z-]+)*) in \d+(?:\.\d+)? ?(?:s|seconds)(?: \(\d+:\d\d:\d\d\))?$/;
const SEPARATED = /^=+ (.+) =+$/;
const SESSION_START = /^=+ test session starts(?: \(.*\))? =+$/;
const COUNT = /(\d+) ([a-z-]+)/g;
/** A section rule (`=== FAILURES ===`, `___ test_x ___`, `--- Captured stdout call ---`). */
const SECTION = /^(?:=+|_+|-+) \S.* (?:=+|_+|-+)$/;
const CAPTURED = /^-+ Captured .* -+$/;

function clean(line: string): string {
  return line.replace(/\r$/, "").replace(COLOUR, "").trim();
}

/** The counts of a pytest terminal summary line (`{passed: 5, failed: 2, ...}`), or null if it is not one. */
export function summaryCounts(line: string): Record<string, number> | null {
  const sep = SEPARATED.exec(clean(line));
  if (!sep || !SUMMARY_BODY.test(sep[1]!)) return null;
  const counts: Record<string, number> = {};
  const head = sep[1]!.slice(0, sep[1]!.lastIndexOf(" in "));
  for (const m of head.matchAll(COUNT)) counts[m[2]!] = (counts[m[2]!] ?? 0) + Number(m[1]);
  return counts;
}

/** Why a region's statuses contradict its pytest summary. */
export type SummaryInconsistency =
  { kind: "results_after_summary"; detail: string } | { kind: "summary_mismatch"; detail: string };

/**
 * Check a harness log's test region against its last pytest summary line.
 * `parse` is the region's parser.
 */
export function summaryInconsistency(region: string, parse: (text: string) => StatusMap): SummaryInconsistency | null {
  const lines = region.split("\n");
  let last = -1;
  let lastCounts: Record<string, number> | null = null;
  let summaries = 0;
  let starts = 0;
  for (const [i, line] of lines.entries()) {
    if (SESSION_START.test(clean(line))) starts++;
    const counts = summaryCounts(line);
    if (counts) {
      summaries++;
      last = i;
      lastCounts = counts;
    }
  }
  if (last < 0 || lastCounts === null) return null;
  const after = Object.keys(parse(lines.slice(last + 1).join("\n")));
  if (after.length > 0) {
    return {
      kind: "results_after_summary",
      detail: `${after.length} test status line(s) after pytest's final summary line, e.g. ${after[0]}`,
    };
  }
  if (starts > 0 && summaries > starts) {
    return {
      kind: "results_after_summary",
      detail: `${summaries} pytest summary lines for ${starts} test session(s): a summary with no run behind it`,
    };
  }
  const passedInLog = Object.values(parse(outerRun(lines, starts > 0))).filter((s) => s === "PASSED").length;
  const passedInSummary = lastCounts["passed"] ?? 0;
  if (passedInLog > passedInSummary) {
    return {
      kind: "summary_mismatch",
      detail: `${passedInLog} test(s) PASSED in the log, pytest's final summary counts ${passedInSummary} passed`,
    };
  }
  return null;
}

/**
 * The lines of the outermost pytest session that pytest itself wrote: a
 * session nested in captured output (a pytester or subprocess run a test
 * printed, from its `test session starts` line to its own summary) and the
 * `--- Captured stdout call ---` sections pytest reprints are left out, since
 * their lines are the tests' own text, not pytest's verdicts.
 */
function outerRun(lines: readonly string[], hasStarts: boolean): string {
  const kept: string[] = [];
  let depth = hasStarts ? 0 : 1;
  let captured = false;
  for (const line of lines) {
    const text = clean(line);
    const isStart = SESSION_START.test(text);
    const isEnd = !isStart && summaryCounts(line) !== null;
    if (isStart) depth++;
    if (depth <= 1 && SECTION.test(text)) captured = CAPTURED.test(text);
    if (depth <= 1 && !isStart && !isEnd && !captured) kept.push(line);
    if (isEnd && depth > 0) depth--;
  }
  return kept.join("\n");
}
