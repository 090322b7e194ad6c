/**
 * The lines that structure a SWE-bench test log (`test_output.txt`), and the
 * harness-owned variant of them this project writes.
 *
 * The official eval script prints `>>>>> Start Test Output` / `>>>>> End Test
 * Output` from inside the same shell that runs the tests (as bash no-ops under
 * `set -x`, so they appear as `+ : '>>>>> Start Test Output'`), and its grader
 * takes the text between the first start marker and the next end marker. Code
 * under test can print the same strings, so it can cut the region short,
 * void the run, or forge the recorded exit code.
 *
 * Our logs are assembled by the harness, outside the test process: the first
 * line is a header naming a per-execution random nonce, and every structural
 * line (start, end, exit code, timeout) carries that nonce. The nonce is drawn
 * after the test process is set up and is never in its environment, argv or
 * files, and the log is written only after the process has ended; so a line
 * the process prints can never be taken for a harness line. Every harness
 * line still contains the official marker text, so the official grader reads
 * our logs too.
 */
import { randomBytes } from "node:crypto";

/** The official markers (swebench/harness/constants). */
export const START_TEST_OUTPUT = ">>>>> Start Test Output";
export const END_TEST_OUTPUT = ">>>>> End Test Output";
export const APPLY_PATCH_FAIL = ">>>>> Patch Apply Failed";
export const APPLY_PATCH_PASS = ">>>>> Applied Patch";
export const RESET_FAILED = ">>>>> Reset Failed";
export const TESTS_ERROR = ">>>>> Tests Errored";
export const TESTS_TIMEOUT = ">>>>> Tests Timed Out";
/** Newer eval scripts echo the test command's exit status after the end marker as `>>>>> Test Exit Code: <n>`. */
export const TEST_EXIT_CODE = ">>>>> Test Exit Code";

/** Markers whose presence anywhere in an official log voids the run (grading.py's "bad codes"). */
export const VOIDING_MARKERS: readonly string[] = [APPLY_PATCH_FAIL, RESET_FAILED, TESTS_ERROR, TESTS_TIMEOUT];

/** First line of a log this project's harness assembled; names the nonce of that execution. */
export const HARNESS_HEADER = ">>>>> a2a-bench harness log";
const NONCE_TAG = "a2a-nonce=";
const HEADER_LINE = /^>>>>> a2a-bench harness log a2a-nonce=([0-9a-f]{32})\r?$/;

/** A fresh nonce: 128 random bits, hex. */
export function newNonce(): string {
  return randomBytes(16).toString("hex");
}

/** The harness's structural lines for one execution. */
export interface HarnessMarkers {
  header: string;
  start: string;
  end: string;
  timedOut: string;
  errored: string;
  /** The exit-code line (official text first, so the official regex reads it too). */
  exitCode(code: number): string;
}

export function harnessMarkers(nonce: string): HarnessMarkers {
  if (!/^[0-9a-f]{32}$/.test(nonce)) throw new Error("harness nonce must be 32 hex digits (use newNonce())");
  const tag = `${NONCE_TAG}${nonce}`;
  return {
    header: `${HARNESS_HEADER} ${tag}`,
    start: `${START_TEST_OUTPUT} ${tag}`,
    end: `${END_TEST_OUTPUT} ${tag}`,
    timedOut: `${TESTS_TIMEOUT} ${tag}`,
    errored: `${TESTS_ERROR} ${tag}`,
    exitCode: (code) => `${TEST_EXIT_CODE}: ${code} ${tag}`,
  };
}

/** The nonce of a harness-assembled log (its first line), or null for any other log (e.g. an official one). */
export function harnessNonceOf(log: string): string | null {
  const first = log.slice(0, log.indexOf("\n") < 0 ? log.length : log.indexOf("\n"));
  return HEADER_LINE.exec(first)?.[1] ?? null;
}

/** What the harness knows about one test execution, to be written as a log. */
export interface HarnessLogParts {
  nonce: string;
  /** Harness-side output before the tests (resetting test files, applying test_patch); never the test process's. */
  preamble?: string;
  /** Everything the test process wrote (stdout and stderr, merged in order). */
  testOutput: string;
  /** The test command's exit status; null if it was killed or never reported one. */
  exitCode: number | null;
  timedOut: boolean;
  /** Harness-side failure running the tests (writes the voiding "Tests Errored" marker). */
  errored?: string;
}

/**
 * Assemble a test log from harness-held parts. The test output goes between
 * the nonce-bearing start and end lines; the exit code and any timeout or
 * error line follow the end line. Call only after the test process has ended.
 */
export function assembleHarnessLog(parts: HarnessLogParts): string {
  const m = harnessMarkers(parts.nonce);
  const lines = [m.header];
  if (parts.preamble) lines.push(parts.preamble.replace(/\n$/, ""));
  lines.push(m.start, parts.testOutput.replace(/\n$/, ""), m.end);
  if (parts.exitCode !== null) lines.push(m.exitCode(parts.exitCode));
  if (parts.timedOut) lines.push(m.timedOut);
  if (parts.errored) lines.push(`${m.errored} ${parts.errored.replace(/\s+/g, " ").slice(0, 500)}`);
  return lines.join("\n") + "\n";
}
