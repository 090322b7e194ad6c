/**
 * The evaluation script run inside an instance's container, after the
 * official harness (swebench/harness: run_evaluation.py applies the model
 * patch, then eval.sh runs the tests):
 * 1. activate the environment as the official eval script does
 *    (`source /opt/miniconda3/bin/activate; conda activate testbed`) when the
 *    image has conda; otherwise the image's own python3;
 * 2. in /testbed, apply the model patch with the official fallbacks in order:
 *    `git apply --verbose`, `git apply --verbose --reject`,
 *    `patch --batch --fuzz=5 -p1 -i`, and print the applied / failed marker;
 * 3. reset the test files to base_commit, `git apply` the test_patch;
 * 4. print the start marker, run the test command, record its exit code,
 *    print the end marker; reset the test files again.
 * The test command and the markers are inputs: the per-version command table
 * and per-run nonce markers come from the caller. Patches are files copied
 * into the container (PATCH_DIR), never on a command line.
 */

/** Where the script and the patches are copied in the container. */
export const PATCH_DIR = "/a2a-eval";

export type ContainerApplyStrategy = "git_apply" | "git_apply_reject" | "patch_fuzz";

/** Official fallbacks, in order (swebench/harness/run_evaluation.py GIT_APPLY_CMDS). */
export const CONTAINER_APPLY_COMMANDS: ReadonlyArray<readonly [ContainerApplyStrategy, string]> = [
  ["git_apply", "git apply --verbose"],
  ["git_apply_reject", "git apply --verbose --reject"],
  ["patch_fuzz", "patch --batch --fuzz=5 -p1 -i"],
];

export interface EvalMarkers {
  /** Printed (followed by a space and the strategy) when the model patch applied. */
  applied: string;
  applyFailed: string;
  /** Printed when test_patch does not apply (our data's fault, not the model's). */
  testPatchFailed: string;
  start: string;
  end: string;
  /** Printed followed by the test command's exit code, after the end marker. */
  exitCode: string;
}

/** The official marker strings (swebench/harness/constants). */
export const OFFICIAL_MARKERS: Readonly<EvalMarkers> = Object.freeze({
  applied: ">>>>> Applied Patch",
  applyFailed: ">>>>> Patch Apply Failed",
  testPatchFailed: ">>>>> Tests Errored",
  start: ">>>>> Start Test Output",
  end: ">>>>> End Test Output",
  exitCode: ">>>>> Test Exit Code",
});

export interface EvalScriptInput {
  baseCommit: string;
  /** Files test_patch touches (reset to base_commit before and after). */
  testFiles: readonly string[];
  /** Shell command running the instance's tests (from the test-command table for its repo and version). */
  testCommand: string;
  /** Extra environment of the test command. */
  testEnv?: Readonly<Record<string, string>>;
  markers: EvalMarkers;
  /** Repository directory in the image (official: /testbed). */
  repoDir?: string;
}

/** POSIX single-quoting. */
export function shellQuote(s: string): string {
  return `'${s.replace(/'/g, `'\\''`)}'`;
}

/** The bash script (run with `bash PATCH_DIR/eval.sh`). */
export function evalScript(input: EvalScriptInput): string {
  const m = input.markers;
  const q = shellQuote;
  const files = input.testFiles.map(q).join(" ");
  const reset = files ? `git checkout ${q(input.baseCommit)} -- ${files} 2>/dev/null || true` : ":";
  const envLines = Object.entries(input.testEnv ?? {}).map(([k, v]) => {
    if (!/^[A-Za-z_][A-Za-z0-9_]*$/.test(k)) throw new Error(`testEnv: not a variable name: ${k}`);
    return `export ${k}=${q(v)}`;
  });
  const tries = CONTAINER_APPLY_COMMANDS.map(([name, cmd]) =>
    `if [ -z "$applied" ] && ${cmd} ${PATCH_DIR}/model.patch; then applied=${name}; fi`);
  return [
    "#!/bin/bash",
    "set -uo pipefail",
    // One stream, in order: markers must start their own lines (two pipes would interleave chunks mid-line).
    "exec 2>&1",
    "if [ -f /opt/miniconda3/bin/activate ]; then source /opt/miniconda3/bin/activate && conda activate testbed; fi",
    `cd ${q(input.repoDir ?? "/testbed")} || exit 1`,
    "git config --global --add safe.directory '*' 2>/dev/null || true",
    'applied=""',
    ...tries,
    `if [ -z "$applied" ]; then echo ${q(m.applyFailed)}; exit 0; fi`,
    `echo ${q(m.applied)} "$applied"`,
    reset,
    // New test files of test_patch may have come with the model patch: the test_patch version wins.
    ...input.testFiles.map((f) => `if ! git cat-file -e ${q(input.baseCommit)}:${q(f)} 2>/dev/null; then rm -f -- ${q(f)}; fi`),
    `if ! git apply --verbose ${PATCH_DIR}/test.patch; then echo ${q(m.testPatchFailed)}; exit 0; fi`,
    ...envLines,
    `echo ${q(m.start)}`,
    input.testCommand,
    "a2a_test_exit=$?",
    `echo ${q(m.end)}`,
    `echo ${q(m.exitCode)} "$a2a_test_exit"`,
    reset,
    "",
  ].join("\n");
}

/** What the log says about the apply step and where the test output is. */
export interface EvalLog {
  /** Strategy that applied the model patch, or null when none did (or the log stops before). */
  appliedWith: ContainerApplyStrategy | null;
  applyFailed: boolean;
  testPatchFailed: boolean;
  /** The start marker was printed (the test command, the model's code, began). */
  started: boolean;
  /** Text between the start and end markers, or null when either is missing. */
  testOutput: string | null;
  testExitCode: number | null;
}

/**
 * Read an eval log. Apply markers count only before the start marker (nothing
 * of the model's code has run by then); the test region runs from the first
 * start marker line to the first end marker line after it.
 */
export function readEvalLog(log: string, m: EvalMarkers): EvalLog {
  const lines = log.split("\n");
  const startAt = lines.indexOf(m.start);
  const head = startAt < 0 ? lines : lines.slice(0, startAt);
  let appliedWith: ContainerApplyStrategy | null = null;
  for (const l of head) {
    if (!l.startsWith(m.applied + " ")) continue;
    const s = l.slice(m.applied.length + 1).trim();
    if (CONTAINER_APPLY_COMMANDS.some(([n]) => n === s)) appliedWith = s as ContainerApplyStrategy;
  }
  const endAt = startAt < 0 ? -1 : lines.indexOf(m.end, startAt + 1);
  let testExitCode: number | null = null;
  if (endAt >= 0) {
    const code = lines.slice(endAt + 1).find((l) => l.startsWith(m.exitCode + " "));
    const n = code ? Number(code.slice(m.exitCode.length + 1).trim()) : NaN;
    testExitCode = Number.isInteger(n) ? n : null;
  }
  return {
    appliedWith,
    applyFailed: head.includes(m.applyFailed),
    testPatchFailed: head.includes(m.testPatchFailed),
    started: startAt >= 0,
    testOutput: startAt >= 0 && endAt >= 0 ? lines.slice(startAt + 1, endAt).join("\n") : null,
    testExitCode,
  };
}
