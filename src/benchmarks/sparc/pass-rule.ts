/**
 * The SPARC pass rule, judged from outside the program. Two facts decide a
 * case, and the program can forge neither:
 *  - its standard output, captured by the sandbox (a pipe the harness reads;
 *    what the program prints is by definition what it printed), compared with
 *    `expectedOutput` by the SPARC 2.0 plan's own rule ({@link planPasses});
 *  - how it ended, as the kernel reported it to the harness (the wait status:
 *    exit code or signal) and the harness's own stops (our timeout, our output
 *    cap, a cancelled run), which the program cannot set
 *    ({@link endedCleanly}).
 * Nothing the program writes anywhere else (a token, a file, a side channel)
 * is consulted: there is nothing beside the program to steal or forge.
 *
 * Consequence, stated on purpose: a program that prints the expected output
 * and exits 0 PASSES, however it got there (hard-coded text, `os._exit(0)`,
 * `process.exit(0)` from a timer). That is SPARC's definition of a pass.
 */
import type { ExecOutcome } from "../../sandbox/types.js";

/**
 * The SPARC 2.0 plan's output comparison, reproduced exactly: stdout, trimmed,
 * equals `expectedOutput` trimmed, or stdout contains `expectedOutput` trimmed.
 * The plan compared the E2B "main result" text for the first half; programs
 * run here have no notebook result, so stdout serves both halves (the second
 * half subsumes the first). Kept for compatibility: an empty `expectedOutput`
 * matches everything.
 */
export function planPasses(stdout: string, expectedOutput: string): boolean {
  const expected = expectedOutput.trim();
  return stdout.trim() === expected || stdout.includes(expected);
}

/**
 * Whether the program ended on its own with exit status 0: not killed by a
 * signal (its own or the kernel's), not stopped by our timeout or output cap,
 * not cancelled, no sandbox failure. The one departure from the plan, which
 * did not consult the exit status: a program that printed the answer and then
 * crashed, exited non-zero or was killed is not a pass.
 */
export function endedCleanly(o: ExecOutcome): boolean {
  return (
    o.infraError === undefined &&
    !o.timedOut &&
    !o.outputLimitExceeded &&
    !o.isCanceled &&
    o.signal === null &&
    o.exitCode === 0
  );
}

/** The case passes: expected output printed (plan's rule) and a clean exit 0 (kernel's word). */
export function sparcPasses(o: ExecOutcome, expectedOutput: string): boolean {
  return endedCleanly(o) && planPasses(o.stdoutTail, expectedOutput);
}
