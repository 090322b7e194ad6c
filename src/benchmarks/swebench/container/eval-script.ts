/**
 * The scripts run inside an instance's container, as separate `docker exec`s
 * so that only the test command is the test process:
 *
 * - {@link applyScript} then {@link testPatchScript} (harness side, before
 *   any of the model's code runs): in /testbed apply the model patch with the
 *   named release's commands and loop (rules.ts `apply`, apply-patch.ts), then reset the test files to base_commit, remove the
 *   files test_patch creates, and apply test_patch (the official order:
 *   model patch first, then eval.sh's reset + test_patch). Two execs, so the
 *   harness can read the patched config files in between, as the host path
 *   does. Their outcome is their exit status ({@link PREPARE_EXIT}), never a
 *   line of output: file names in git's output come from the patch.
 * - {@link testScript}: activate the environment as the official eval script
 *   does (conda `testbed` when the image has it), run eval_commands, then the
 *   test command, stderr merged into stdout. It prints no marker: the harness
 *   assembles the log after this process has ended (markers.ts).
 *
 * Patches are files copied into the container (PATCH_DIR), never on a
 * command line.
 */

import { APPLY_COMMANDS, type AppliedWith } from "../apply-patch.js";
import { ruleSet, type ApplyStrategy, type RuleSet } from "../rules.js";
import { GIT_SHELL_FUNCTION } from "../git-background.js";

/** Where the scripts and the patches are copied in the container. */
export const PATCH_DIR = "/a2a-eval";

export type ContainerApplyStrategy = AppliedWith;

/** The official commands of a release's strategies, in order (rules.ts `apply`). */
export function containerApplyCommands(
  plan: RuleSet["apply"] = ruleSet().apply,
): ReadonlyArray<readonly [ApplyStrategy, string]> {
  return plan.strategies.map((s) => [s, APPLY_COMMANDS[s].join(" ")] as const);
}

/** The default release's commands (kept for callers that name no release). */
export const CONTAINER_APPLY_COMMANDS = containerApplyCommands();

/** Exit statuses of the apply and test-patch scripts (anything else: the script itself failed, our error). */
export const PREPARE_EXIT = {
  /** Applied with CONTAINER_APPLY_COMMANDS[status - 10]. */
  APPLIED_BASE: 10,
  /** Every strategy failed and 5.0.2's `git apply --check --reverse` finds the patch already applied. */
  ALREADY_APPLIED: 19,
  /** No strategy applied the model patch (the model's failure). */
  APPLY_FAILED: 20,
  /** test_patch did not apply (our data's fault, not the model's). */
  TEST_PATCH_FAILED: 21,
  /** /testbed missing or git unusable: the image is not a test bed. */
  NO_TESTBED: 22,
} as const;

/** The strategy an apply.sh exit status names under the release's plan, or null. */
export function appliedWith(
  exitCode: number | null,
  plan: RuleSet["apply"] = ruleSet().apply,
): ContainerApplyStrategy | null {
  if (exitCode === null) return null;
  if (exitCode === PREPARE_EXIT.ALREADY_APPLIED) return plan.reverseCheck ? "already_applied" : null;
  return plan.strategies[exitCode - PREPARE_EXIT.APPLIED_BASE] ?? null;
}

export interface PrepareScriptInput {
  baseCommit: string;
  /** Repository paths the model patch names (put back to HEAD between apply attempts). */
  patchTargets: readonly string[];
  /** Files reset to base_commit before test_patch. */
  resetFiles: readonly string[];
  /** Files test_patch creates (removed before it applies). */
  newFiles: readonly string[];
  /** Repository directory in the image (official: /testbed). */
  repoDir?: string;
}

export interface TestScriptInput {
  /** Official eval_commands (locale set-up, exports), run before the tests. */
  evalCommands: readonly string[];
  /** Shell command running the instance's tests. */
  testCommand: string;
  /** Extra environment of the test command. */
  testEnv?: Readonly<Record<string, string>>;
  repoDir?: string;
}

/** POSIX single-quoting. */
export function shellQuote(s: string): string {
  return `'${s.replace(/'/g, `'\\''`)}'`;
}

const ACTIVATE =
  "if [ -f /opt/miniconda3/bin/activate ]; then source /opt/miniconda3/bin/activate && conda activate testbed; fi";

function preamble(repoDir: string | undefined): string[] {
  return [
    "#!/bin/bash",
    "set -uo pipefail",
    "exec 2>&1",
    GIT_SHELL_FUNCTION,
    `cd ${shellQuote(repoDir ?? "/testbed")} || exit ${PREPARE_EXIT.NO_TESTBED}`,
    `git config --global --add safe.directory '*' 2>/dev/null || exit ${PREPARE_EXIT.NO_TESTBED}`,
    `git rev-parse --verify -q HEAD >/dev/null || exit ${PREPARE_EXIT.NO_TESTBED}`,
  ];
}

/**
 * The apply script (`bash PATCH_DIR/apply.sh`): the model patch, the release's commands in order
 * (rules.ts `apply`): 5.0.2 puts the tree back between attempts as the official loop does
 * (`git checkout -- . ; git clean -fd`) and finally tries `git apply --check --reverse`; 4.1.0
 * runs each command on what the previous one left. Exit: PREPARE_EXIT.
 */
export function applyScript(
  input: Pick<PrepareScriptInput, "patchTargets" | "repoDir"> & { plan?: RuleSet["apply"] },
): string {
  const plan = input.plan ?? ruleSet().apply;
  const patch = `${PATCH_DIR}/model.patch`;
  const tries = containerApplyCommands(plan).map(([, cmd], i) => {
    const reset = i > 0 && plan.resetBetween ? "git checkout -- . ; git clean -fd ; " : "";
    return `if [ -z "$exit_applied" ]; then ${reset}if ${cmd} ${patch}; then exit_applied=${PREPARE_EXIT.APPLIED_BASE + i}; fi; fi`;
  });
  const reverse = plan.reverseCheck
    ? [
        `if [ -z "$exit_applied" ] && git apply --check --reverse ${patch}; then exit_applied=${PREPARE_EXIT.ALREADY_APPLIED}; fi`,
      ]
    : [];
  return [
    ...preamble(input.repoDir),
    'exit_applied=""',
    ...tries,
    ...reverse,
    `if [ -z "$exit_applied" ]; then exit ${PREPARE_EXIT.APPLY_FAILED}; fi`,
    'exit "$exit_applied"',
    "",
  ].join("\n");
}

/** The test-patch script (`bash PATCH_DIR/test-patch.sh`): reset the test files, remove test_patch's new files, apply it. Exit 0 or PREPARE_EXIT. */
export function testPatchScript(input: Omit<PrepareScriptInput, "patchTargets">): string {
  const q = shellQuote;
  const reset = input.resetFiles.length
    ? `git checkout -q ${q(input.baseCommit)} -- ${input.resetFiles.map(q).join(" ")} || exit ${PREPARE_EXIT.TEST_PATCH_FAILED}`
    : ":";
  return [
    ...preamble(input.repoDir),
    reset,
    ...input.newFiles.map((f) => `rm -rf -- ${q(f)}`),
    `git apply --verbose ${PATCH_DIR}/test.patch || exit ${PREPARE_EXIT.TEST_PATCH_FAILED}`,
    "",
  ].join("\n");
}

/** The test script (run with `bash PATCH_DIR/test.sh`): nothing but the environment and the test command. */
export function testScript(input: TestScriptInput): string {
  const q = shellQuote;
  const envLines = Object.entries(input.testEnv ?? {}).map(([k, v]) => {
    if (!/^[A-Za-z_][A-Za-z0-9_]*$/.test(k)) throw new Error(`testEnv: not a variable name: ${k}`);
    return `export ${k}=${q(v)}`;
  });
  return [
    "#!/bin/bash",
    "set -uo pipefail",
    // One stream, in the order the tests wrote it (the official test_output.txt).
    "exec 2>&1",
    ACTIVATE,
    `cd ${q(input.repoDir ?? "/testbed")} || exit 1`,
    ...input.evalCommands,
    ...envLines,
    input.testCommand,
    "",
  ].join("\n");
}
