/**
 * The test-run inventory (inventory-probe.ts) of a tree on the host path:
 * both probes run in the sandbox the tests run in, with its python3, in the
 * tree, and with the test run's environment, so they see what the test
 * command sees and depend on nothing but the interpreter and the tree. A
 * sandbox failure is ours (thrown); whatever the probed tree does to a probe
 * (a hang, a crash, no report) is the tree's, recorded in the inventory.
 */
import type { Sandbox } from "../../sandbox/types.js";
import { BenchError } from "../../util/errors.js";
import type { SwebenchInstance } from "./instance.js";
import { runnerMark, runnerProbeCommand, staticProbeCommand } from "./inventory-probe.js";
import { probeResult, staticResult, type Inventory, type ProbeResult } from "./test-inventory.js";
import { diffFiles, testDirectives, versionSpecFor } from "./test-spec.js";

/** Limit of the static probe, ms (reads the tree; no code of the tree runs). */
export const STATIC_PROBE_TIMEOUT_MS = 60_000;
/**
 * Least limit of the runner probe, ms. Collection of a large repository's test files takes tens of
 * seconds, and a probe cut short on a loaded machine would flag an honest patch; the tests' own limit
 * applies when it is longer.
 */
export const RUNNER_PROBE_MIN_TIMEOUT_MS = 60_000;

/** The runner probe's limit for a test limit of `testTimeoutMs`. */
export function runnerProbeTimeoutMs(testTimeoutMs: number): number {
  return Math.max(testTimeoutMs, RUNNER_PROBE_MIN_TIMEOUT_MS);
}

/** The paths the test command hands pytest: the official directives, or the sample set's test files. */
export function probeArgs(inst: SwebenchInstance): string[] {
  return versionSpecFor(inst) !== null ? testDirectives(inst) : diffFiles(inst.test_patch);
}

/** Does the test command run pytest itself (not django's runner, sympy's bin/test or tox)? */
export function runsPytest(command: string): boolean {
  return /\bpytest\b/.test(command) && !/\b(?:tox|runtests\.py|bin\/test)\b/.test(command);
}

export interface ProbeTarget {
  sandbox: Sandbox;
  /** The tree. */
  workDir: string;
  tests: readonly string[];
  /** The test run's environment. */
  env: Readonly<Record<string, string>>;
  /** Run the runner probe too (pytest repositories). */
  runner: boolean;
  /** The tests' limit, ms (the runner probe gets {@link runnerProbeTimeoutMs} of it). */
  timeoutMs: number;
  signal: AbortSignal;
}

async function probe(
  t: ProbeTarget,
  code: string,
  timeoutMs: number,
  read: (o: string, e: string, x: number | null) => ProbeResult,
): Promise<ProbeResult> {
  const r = await t.sandbox.exec(
    { language: "bash", code, timeoutMs, workDir: t.workDir, env: { ...t.env } },
    t.signal,
  );
  if (r.infraError)
    throw new BenchError("E_SWEBENCH_PROBE", `sandbox failed running the test-run inventory: ${r.infraError}`);
  if (r.isCanceled || t.signal.aborted)
    throw new BenchError("E_SWEBENCH_CANCELLED", "cancelled during the test-run inventory");
  if (r.timedOut) return { error: `timed out after ${timeoutMs / 1000} s` };
  return read(r.stdoutTail, r.stderrTail, r.exitCode);
}

/** Both probes' answers for the tree as it is now. */
export async function localInventory(t: ProbeTarget): Promise<Inventory> {
  const st = await probe(t, staticProbeCommand(t.tests), STATIC_PROBE_TIMEOUT_MS, (o, e, x) => staticResult(o, x, e));
  if (!t.runner) return { static: st, runner: null };
  const mark = runnerMark();
  const runner = await probe(t, runnerProbeCommand(t.tests, mark), runnerProbeTimeoutMs(t.timeoutMs), (o, e, x) =>
    probeResult(o, mark, x, e),
  );
  return { static: st, runner };
}
