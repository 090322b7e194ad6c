/**
 * Test-log parsers, one per repository family of the official harness
 * (swebench/harness/log_parsers/python.py), reimplemented from its documented
 * behaviour, quirks included: a parser maps test id → status word, and the
 * status is the word the log printed (a line starting `ERROR:` yields status
 * `ERROR:`, which grading then treats as neither passed nor failed, exactly
 * as the official grader does). Line splitting follows Python's `str.split()`
 * (runs of whitespace).
 *
 * Families and the repositories that use them are in test-spec.ts; the
 * registry below also knows the official per-repository aliases
 * (`parse_log_flask` = `parse_log_pytest`, ...), which SWE-bench 5.x datasets
 * name in their `log_parser` field.
 */
import { ruleSet, type RuleSet } from "./rules.js";

/** SWE-bench's TestStatus vocabulary (parsers may also yield other words; see above). */
export type TestStatus = "PASSED" | "FAILED" | "SKIPPED" | "ERROR" | "XFAIL";
export const TEST_STATUSES: readonly TestStatus[] = ["FAILED", "PASSED", "SKIPPED", "ERROR", "XFAIL"];

/** test id → status word. */
export type StatusMap = Record<string, string>;

export type LogParser = (log: string, rules?: RuleSet) => StatusMap;

/** Python's `str.split()` with no argument: split on whitespace runs, no empty words. */
export function pySplit(s: string): string[] {
  return s.split(/[\s\x1c-\x1f\x85]+/).filter((w) => w !== "");
}

const startsWithStatus = (line: string): boolean => TEST_STATUSES.some((s) => line.startsWith(s));
const endsWithStatus = (line: string): boolean => TEST_STATUSES.some((s) => line.endsWith(s));
/** `SKIPPED [3] path:line: reason`: the `[3]` is a count, not a test (dropped from 5.0.0 on). */
const isSkipSummary = (status: string, name: string): boolean => status === "SKIPPED" && /^\[\d+\]$/.test(name);

/** Plain map: ids like `__proto__` or `constructor` must be ordinary keys. */
function emptyMap(): StatusMap {
  return Object.create(null) as StatusMap;
}

/**
 * pytest with `-rA`: every line starting with a status word; the id is the
 * second word (FAILED lines lose their ` - ` separators first). Used for
 * pytest, flask, xarray, astroid, marshmallow, pvlib, pyvista, sqlfluff.
 */
export function parseLogPytest(log: string, rules: RuleSet = ruleSet()): StatusMap {
  return pytestLike(log, rules, (id) => id);
}

function pytestLike(
  log: string,
  rules: RuleSet,
  name: (id: string) => string,
  rewrite: (line: string) => string = (l) => l,
): StatusMap {
  const map = emptyMap();
  for (const raw of log.split("\n")) {
    let line = rewrite(raw);
    if (!startsWithStatus(line)) continue;
    if (line.startsWith("FAILED")) line = line.replaceAll(" - ", " ");
    const words = pySplit(line);
    if (words.length <= 1) continue;
    if (rules.dropSkipSummary && isSkipSummary(words[0]!, words[1]!)) continue;
    map[name(words[1]!)] = words[0]!;
  }
  return map;
}

/**
 * pytest, with parametrize options normalised: in `name[option]`, an option
 * that is an absolute path (one leading `/`, no `*`) is cut to `/<last
 * component>`; anything after the last `]` is dropped. Used for requests,
 * pylint, pydicom.
 */
export function parseLogPytestOptions(log: string, rules: RuleSet = ruleSet()): StatusMap {
  return pytestLike(log, rules, (id) => {
    // Python's re.search of `(.*?)\[(.*)\]`: the first `[`, the last `]` after it.
    const open = id.indexOf("[");
    const close = id.lastIndexOf("]");
    if (open < 0 || close <= open) return id;
    const main = id.slice(0, open);
    let option = id.slice(open + 1, close);
    if (option.startsWith("/") && !option.startsWith("//") && !option.includes("*"))
      option = "/" + option.split("/").pop()!;
    return `${main}[${option}]`;
  });
}

/** pytest, with `MouseButton.LEFT`/`RIGHT` in ids written as `1`/`3` (matplotlib). */
export function parseLogMatplotlib(log: string, rules: RuleSet = ruleSet()): StatusMap {
  return pytestLike(
    log,
    rules,
    (id) => id,
    (line) => line.replaceAll("MouseButton.LEFT", "1").replaceAll("MouseButton.RIGHT", "3"),
  );
}

const CONTROL_CHARS = /[\x01-\x1f]/g;

/**
 * pytest, later versions (astropy, scikit-learn, sphinx): control characters
 * and `[<n>m` colour remnants are removed; lines starting with a status word
 * as in {@link parseLogPytest}, and lines ending with one (`-v` progress lines
 * of older pytest) map what precedes the word.
 */
export function parseLogPytestV2(log: string, rules: RuleSet = ruleSet()): StatusMap {
  const map = emptyMap();
  for (const raw of log.split("\n")) {
    let line = raw.replace(/\[(\d+)m/g, "").replace(CONTROL_CHARS, "");
    if (startsWithStatus(line)) {
      if (line.startsWith("FAILED")) line = rules.pytestV2WholeId ? line.split(" - ")[0]! : line.replaceAll(" - ", " ");
      const words = pySplit(line);
      if (words.length < 2) continue;
      if (rules.pytestV2WholeId) {
        if (!isSkipSummary(words[0]!, words[1]!)) map[words.slice(1).join(" ")] = words[0]!;
      } else {
        map[words[1]!] = words[0]!;
      }
    } else if (endsWithStatus(line)) {
      const words = pySplit(line);
      if (words.length < 2) continue;
      if (rules.pytestV2WholeId) map[words.slice(0, -1).join(" ")] = words[words.length - 1]!;
      else map[words[0]!] = words[1]!;
    }
  }
  return map;
}

/**
 * seaborn: `FAILED <id>` lines, `<id> PASSED ...` progress lines and `PASSED
 * <id>` lines only; skips, errors and xfails are not recorded.
 */
export function parseLogSeaborn(log: string): StatusMap {
  const map = emptyMap();
  for (const line of log.split("\n")) {
    const words = pySplit(line);
    if (words.length < 2) continue;
    if (line.startsWith("FAILED")) map[words[1]!] = "FAILED";
    else if (line.includes(" PASSED ")) {
      if (words[1] === "PASSED") map[words[0]!] = "PASSED";
    } else if (line.startsWith("PASSED")) map[words[1]!] = "PASSED";
  }
  return map;
}

/**
 * sympy's `bin/test -C --verbose`: per-test lines `test_name ok|F|E`, plus
 * `____ path.py:test_name ____` failure headers, recorded as FAILED under
 * `path.py:test_name`.
 */
export function parseLogSympy(log: string): StatusMap {
  const map = emptyMap();
  // Python's `(_*) (.*)\.py:(.*) (_*)` with findall; `.` there is any character but a newline.
  for (const m of log.matchAll(/(_*) ([^\n]*)\.py:([^\n]*) (_*)/g)) map[`${m[2]}.py:${m[3]}`] = "FAILED";
  for (const raw of log.split("\n")) {
    const line = pyStrip(raw);
    if (!line.startsWith("test_")) continue;
    const first = pySplit(line)[0]!;
    if (line.endsWith(" E")) map[first] = "ERROR";
    if (line.endsWith(" F")) map[first] = "FAILED";
    if (line.endsWith(" ok")) map[first] = "PASSED";
  }
  return map;
}

/** Python's `str.strip()`. */
function pyStrip(s: string): string {
  return s.replace(/^[\s\x1c-\x1f\x85]+|[\s\x1c-\x1f\x85]+$/g, "");
}

const DJANGO_PASS_SUFFIXES = [" ... ok", " ... OK", " ...  OK"];
/** The one test whose migration output lands on its own result line (django__django-7188). */
const DJANGO_MIGRATION_PREFIX = "Applying sites.0002_alter_domain_unique...test_no_migrations";
const DJANGO_VERSION_TEST = "--version is equivalent to version";
/** Result lines broken by a multi-line print, each ending in `ok` on the next line. */
const DJANGO_SPLIT_RESULTS = [
  /^(.*?)\s\.\.\.\sTesting against Django installed in ([\s\S]*?) silenced\)\.\nok$/gm,
  /^(.*?)\s\.\.\.\sInternal Server Error: \/(.*)\/\nok$/gm,
  /^(.*?)\s\.\.\.\sSystem check identified no issues \(0 silenced\)\nok$/gm,
];

/**
 * Django's `runtests.py --verbosity 2`: `<test> ... ok|OK|skipped|FAIL|ERROR`,
 * `FAIL: <test>` / `ERROR: <test>` headers, a bare `ok` line closing the last
 * `<test> ... ` line that output interrupted, and three known interruptions
 * matched across lines.
 */
export function parseLogDjango(log: string): StatusMap {
  const map = emptyMap();
  let prevTest: string | null = null;
  for (const raw of log.split("\n")) {
    let line = pyStrip(raw);
    if (line.includes(DJANGO_VERSION_TEST)) map[DJANGO_VERSION_TEST] = "PASSED";
    if (line.includes(" ... ")) prevTest = line.split(" ... ")[0]!;
    for (const suffix of DJANGO_PASS_SUFFIXES) {
      if (!line.endsWith(suffix)) continue;
      if (line.startsWith(DJANGO_MIGRATION_PREFIX)) line = pyStrip(line.slice(line.indexOf("...") + 3));
      map[line.slice(0, line.lastIndexOf(suffix))] = "PASSED";
      break;
    }
    if (line.includes(" ... skipped")) map[line.split(" ... skipped")[0]!] = "SKIPPED";
    if (line.endsWith(" ... FAIL")) map[line.split(" ... FAIL")[0]!] = "FAILED";
    if (line.startsWith("FAIL:")) {
      const w = pySplit(line)[1];
      if (w !== undefined) map[w] = "FAILED";
    }
    if (line.endsWith(" ... ERROR")) map[line.split(" ... ERROR")[0]!] = "ERROR";
    if (line.startsWith("ERROR:")) {
      const w = pySplit(line)[1];
      if (w !== undefined) map[w] = "ERROR";
    }
    if (line.startsWith("ok") && prevTest !== null) map[prevTest] = "PASSED";
  }
  for (const re of DJANGO_SPLIT_RESULTS) for (const m of log.matchAll(re)) map[m[1]!] = "PASSED";
  return map;
}

/**
 * Not an official parser: pytest `-rA` summary lines plus `-v` progress lines
 * (`path::test STATUS [ nn%]`), the summary winning. The default for
 * repositories the official table does not know (e.g. the embedded sample
 * set), because `-rA` alone names no skipped test.
 */
export function parseLogPytestVerbose(log: string): StatusMap {
  const verbose = emptyMap();
  const summary = emptyMap();
  const statuses = "PASSED|FAILED|SKIPPED|ERROR|XFAIL|XPASS";
  const summaryLine = new RegExp(`^(${statuses}) (\\S.*?)(?: - .*)?$`);
  const verboseLine = new RegExp(`^(\\S.*?::.*?) (${statuses})(?: |$)`);
  for (const rawLine of log.split(/\r?\n/)) {
    const line = rawLine.replace(/\x1b\[[0-9;]*m/g, "").trimEnd();
    const v = verboseLine.exec(line);
    if (v) {
      verbose[v[1]!] = v[2]!;
      continue;
    }
    const s = summaryLine.exec(line);
    if (s) {
      const status = s[1]!;
      const id = s[2]!.trim();
      if (status === "SKIPPED" && id.startsWith("[")) continue;
      summary[status === "XPASS" ? id.split(" ")[0]! : id] = status;
    }
  }
  return Object.assign(emptyMap(), verbose, summary);
}

/** Parser families by their official name, plus {@link parseLogPytestVerbose}. */
export const LOG_PARSERS = {
  parse_log_pytest: parseLogPytest,
  parse_log_pytest_options: parseLogPytestOptions,
  parse_log_pytest_v2: parseLogPytestV2,
  parse_log_django: parseLogDjango,
  parse_log_sympy: parseLogSympy,
  parse_log_matplotlib: parseLogMatplotlib,
  parse_log_seaborn: parseLogSeaborn,
  a2a_pytest_verbose: parseLogPytestVerbose,
} as const satisfies Record<string, LogParser>;

export type Framework = keyof typeof LOG_PARSERS;

/** The official registry's per-repository names, resolved to their family. */
export const PARSER_ALIASES: Readonly<Record<string, Framework>> = {
  parse_log_astroid: "parse_log_pytest",
  parse_log_flask: "parse_log_pytest",
  parse_log_marshmallow: "parse_log_pytest",
  parse_log_pvlib: "parse_log_pytest",
  parse_log_pyvista: "parse_log_pytest",
  parse_log_sqlfluff: "parse_log_pytest",
  parse_log_xarray: "parse_log_pytest",
  parse_log_pydicom: "parse_log_pytest_options",
  parse_log_requests: "parse_log_pytest_options",
  parse_log_pylint: "parse_log_pytest_options",
  parse_log_astropy: "parse_log_pytest_v2",
  parse_log_scikit: "parse_log_pytest_v2",
  parse_log_sphinx: "parse_log_pytest_v2",
};

/** A parser family by official name or alias; undefined if unknown. */
export function frameworkByName(name: string): Framework | undefined {
  if (Object.hasOwn(LOG_PARSERS, name)) return name as Framework;
  return PARSER_ALIASES[name];
}

/** Kept for callers of the earlier API: the sample set's parser. */
export const parsePytestLog = parseLogPytestVerbose;
