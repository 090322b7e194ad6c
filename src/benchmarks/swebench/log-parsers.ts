/**
 * Test-log parsers, one per test framework, chosen through a table keyed by
 * framework name (see test-spec.ts for the repo → framework table), as
 * SWE-bench's `MAP_REPO_TO_PARSER` does. Each returns test id → status.
 */

/** SWE-bench's TestStatus vocabulary. */
export type TestStatus = "PASSED" | "FAILED" | "SKIPPED" | "ERROR" | "XFAIL" | "XPASS";

export type StatusMap = Record<string, TestStatus>;

export type LogParser = (log: string) => StatusMap;

const STATUSES = "PASSED|FAILED|SKIPPED|ERROR|XFAIL|XPASS";
// `-rA` short summary: "FAILED tests/t.py::test_x - AssertionError: ..."
const SUMMARY_LINE = new RegExp(`^(${STATUSES}) (\\S.*?)(?: - .*)?$`);
// `-v` progress line: "tests/t.py::test_x PASSED   [ 50%]" (node ids may contain spaces in parameters)
const VERBOSE_LINE = new RegExp(`^(\\S.*?::.*?) (${STATUSES})(?: |$)`);

/**
 * pytest with `-rA` (and optionally `-v`). The `-rA` summary wins over the
 * progress lines; SKIPPED summary lines carry a location, not a node id, so
 * skips are taken from the `-v` progress lines.
 */
export function parsePytestLog(log: string): StatusMap {
  const verbose: StatusMap = {};
  const summary: StatusMap = {};
  for (const rawLine of log.split(/\r?\n/)) {
    const line = rawLine.replace(/\x1b\[[0-9;]*m/g, "").trimEnd();
    const v = VERBOSE_LINE.exec(line);
    if (v) {
      verbose[v[1]!] = v[2] as TestStatus;
      continue;
    }
    const s = SUMMARY_LINE.exec(line);
    if (s) {
      const status = s[1] as TestStatus;
      const id = s[2]!.trim();
      if (status === "SKIPPED" && id.startsWith("[")) continue;
      // XPASS summary lines may append a reason after the id without " - ".
      summary[status === "XPASS" ? id.split(" ")[0]! : id] = status;
    }
  }
  return { ...verbose, ...summary };
}

/** Registered parsers by framework name. Add a framework here and name it in test-spec.ts. */
export const LOG_PARSERS = {
  pytest: parsePytestLog,
} as const satisfies Record<string, LogParser>;

export type Framework = keyof typeof LOG_PARSERS;
