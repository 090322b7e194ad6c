/**
 * The scripts run inside an instance's container, as separate `docker exec`s
 * so that only the test command is the test process:
 *
 * - {@link applyScript} then {@link testPatchScript} (harness side, before
 *   any of the model's code runs): in /testbed apply the model patch with the official fallbacks in
 *   order (`git apply --verbose`, `git apply --verbose --reject`,
 *   `patch --batch --fuzz=5 -p1 -i`; swebench/harness run_evaluation.py
 *   GIT_APPLY_CMDS), putting the patch's files back between attempts as the
 *   host path does, then reset the test files to base_commit, remove the
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

/** Where the scripts and the patches are copied in the container. */
export const PATCH_DIR = "/a2a-eval";

export type ContainerApplyStrategy = "git_apply" | "git_apply_reject" | "patch_fuzz";

/** Official fallbacks, in order (swebench/harness/run_evaluation.py GIT_APPLY_CMDS). */
export const CONTAINER_APPLY_COMMANDS: ReadonlyArray<readonly [ContainerApplyStrategy, string]> = [
  ["git_apply", "git apply --verbose"],
  ["git_apply_reject", "git apply --verbose --reject"],
  ["patch_fuzz", "patch --batch --fuzz=5 -p1 -i"],
];

/** Exit statuses of the apply and test-patch scripts (anything else: the script itself failed, our error). */
export const PREPARE_EXIT = {
  /** Applied with CONTAINER_APPLY_COMMANDS[status - 10]. */
  APPLIED_BASE: 10,
  /** No strategy applied the model patch (the model's failure). */
  APPLY_FAILED: 20,
  /** test_patch did not apply (our data's fault, not the model's). */
  TEST_PATCH_FAILED: 21,
  /** /testbed missing or git unusable: the image is not a test bed. */
  NO_TESTBED: 22,
} as const;

/** The strategy an apply.sh exit status names, or null. */
export function appliedWith(exitCode: number | null): ContainerApplyStrategy | null {
  if (exitCode === null) return null;
  return CONTAINER_APPLY_COMMANDS[exitCode - PREPARE_EXIT.APPLIED_BASE]?.[0] ?? null;
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
    `cd ${shellQuote(repoDir ?? "/testbed")} || exit ${PREPARE_EXIT.NO_TESTBED}`,
    `git config --global --add safe.directory '*' 2>/dev/null || exit ${PREPARE_EXIT.NO_TESTBED}`,
    `git rev-parse --verify -q HEAD >/dev/null || exit ${PREPARE_EXIT.NO_TESTBED}`,
  ];
}

/** The apply script (`bash PATCH_DIR/apply.sh`): the model patch, official fallbacks in order. Exit: PREPARE_EXIT. */
export function applyScript(input: Pick<PrepareScriptInput, "patchTargets" | "repoDir">): string {
  const q = shellQuote;
  const undo = input.patchTargets.map(
    (p) =>
      `if git cat-file -e HEAD:${q(p)} 2>/dev/null; then git checkout -q HEAD -- ${q(p)}; else rm -rf -- ${q(p)}; fi; rm -f -- ${q(p + ".rej")} ${q(p + ".orig")}`,
  );
  const tries = CONTAINER_APPLY_COMMANDS.map(
    ([, cmd], i) =>
      `if [ -z "$exit_applied" ]; then if ${cmd} ${PATCH_DIR}/model.patch; then exit_applied=${PREPARE_EXIT.APPLIED_BASE + i}; else ${[":", ...undo].join("; ")}; fi; fi`,
  );
  return [
    ...preamble(input.repoDir),
    'exit_applied=""',
    ...tries,
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
