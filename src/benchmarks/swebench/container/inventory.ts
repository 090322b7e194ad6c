/**
 * The test-run inventory (../inventory-probe.ts) inside an instance's
 * environment: each probe is its own command, a script run like the
 * test script (the image's environment activated, eval_commands, the test
 * environment, in /testbed), so it sees the interpreter and configuration
 * the tests see. The baseline is taken on the base commit with test_patch
 * applied, then exactly that is undone (the test files back to the base
 * commit, the files test_patch creates removed), so the model patch then
 * meets the tree the official harness gives it.
 *
 * Each probe runs under `timeout -s KILL` inside the container (when the
 * image has it), so a hung probe ends as a probe without a report (a flag
 * after the patch) and the environment lives on. Only if that fails does the
 * step's own limit (30 s later) end the environment, and no later step can
 * run: before the patch that is our error (the base tree hung), after it the
 * patch's (its code hangs collection, as the tests would): the caller turns
 * either into a verdict.
 */
import { runnerMark, runnerProbeCommand, staticProbeCommand } from "../inventory-probe.js";
import { probeResult, staticResult, type Inventory, type ProbeResult } from "../test-inventory.js";
import { runsPytest } from "../local-inventory.js";
import { PATCH_DIR, shellQuote, testScript } from "./eval-script.js";
import { GIT_SHELL_FUNCTION } from "../git-background.js";
import type { Environment, EnvironmentExecOutcome } from "../../../sandbox/environment.js";

/** Limit of the static probe in a container, ms (reads the tree; no code of the tree runs). */
export const CONTAINER_STATIC_PROBE_MS = 120_000;
/** What the step limit allows beyond a probe's own `timeout`, ms (the harness kills the container only then). */
export const PROBE_STEP_SLACK_MS = 30_000;

/** What the probes need to know of the instance's plan. */
export interface InventoryPlan {
  baseCommit: string;
  resetFiles: readonly string[];
  newFiles: readonly string[];
  evalCommands: readonly string[];
  testCommand: string;
  env: Readonly<Record<string, string>>;
  /** The test paths the test command hands pytest. */
  tests: readonly string[];
}

/** The probe scripts, copied into PATCH_DIR with the others; `marks` are the runner probe's (before, after). */
export function inventoryFiles(
  plan: InventoryPlan,
  repoDir: string,
  marks: readonly [string, string],
  runnerMs: number,
): Record<string, string> {
  const script = (cmd: string): string =>
    testScript({ evalCommands: plan.evalCommands, testCommand: cmd, testEnv: plan.env, repoDir });
  // The probe under `timeout -s KILL` when the image has it: a hung probe then ends on its own.
  const limited = (ms: number, build: (python: string) => string): string =>
    `A2A_T=""; if command -v timeout >/dev/null; then A2A_T="timeout -s KILL ${Math.ceil(ms / 1000)}"; fi\n` +
    build('$A2A_T "$(command -v python3 || command -v python || echo python3)"');
  const q = shellQuote;
  const files: Record<string, string> = {
    "static-probe.sh": script(limited(CONTAINER_STATIC_PROBE_MS, (py) => staticProbeCommand(plan.tests, py))),
    "undo-test-patch.sh": [
      "#!/bin/bash",
      GIT_SHELL_FUNCTION,
      `cd ${q(repoDir)} || exit 1`,
      ...(plan.resetFiles.length
        ? [`git checkout -q ${q(plan.baseCommit)} -- ${plan.resetFiles.map(q).join(" ")} || exit 1`]
        : []),
      ...plan.newFiles.map((f) => `rm -rf -- ${q(f)}`),
      "",
    ].join("\n"),
  };
  if (runsPytest(plan.testCommand)) {
    files["runner-probe-before.sh"] = script(limited(runnerMs, (py) => runnerProbeCommand(plan.tests, marks[0], py)));
    files["runner-probe-after.sh"] = script(limited(runnerMs, (py) => runnerProbeCommand(plan.tests, marks[1], py)));
  }
  return files;
}

/** Fresh marks for the runner probe (before, after). */
export function inventoryMarks(): [string, string] {
  return [runnerMark(), runnerMark()];
}

/** A probe step that did not run to an answer for a reason of its own (timeout, cancel, the backend), or null. */
export type ProbeStop = { step: EnvironmentExecOutcome; what: string };

/**
 * Both probes in the environment; `which` picks the runner probe's script and mark.
 * Returns the inventory, or the step that stopped (the caller decides whose fault).
 */
export async function containerInventory(
  c: Environment,
  plan: InventoryPlan,
  which: "before" | "after",
  marks: readonly [string, string],
  runnerTimeoutMs: number,
  signal: AbortSignal,
): Promise<{ inventory: Inventory } | { stopped: ProbeStop }> {
  const run = async (file: string, timeoutMs: number): Promise<EnvironmentExecOutcome> =>
    c.exec(["/bin/bash", `${PATCH_DIR}/${file}`], { timeoutMs, signal });
  const st = await run("static-probe.sh", CONTAINER_STATIC_PROBE_MS + PROBE_STEP_SLACK_MS);
  if (st.timedOut || st.isCanceled || st.infraError)
    return { stopped: { step: st, what: `the static probe (${which})` } };
  const staticAnswer = staticResult(st.output, st.exitCode);
  if (!runsPytest(plan.testCommand)) return { inventory: { static: staticAnswer, runner: null } };
  const mark = which === "before" ? marks[0] : marks[1];
  const rn = await run(`runner-probe-${which}.sh`, runnerTimeoutMs + PROBE_STEP_SLACK_MS);
  if (rn.timedOut || rn.isCanceled || rn.infraError)
    return { stopped: { step: rn, what: `the runner probe (${which})` } };
  const runner: ProbeResult = probeResult(rn.output, mark, rn.exitCode);
  return { inventory: { static: staticAnswer, runner } };
}
