/**
 * mini-swe-agent's way to submit: the agent runs a command whose output's
 * first line is {@link SUBMIT_SENTINEL}; the rest of that output is the
 * submission (typically `echo COMPLETE_TASK_AND_SUBMIT_FINAL_OUTPUT && git diff`).
 * mini-swe-agent checks every command's output (leading whitespace stripped,
 * first line trimmed, exit code 0).
 *
 * Here the check is narrower on purpose: it applies only to a command that
 * itself STARTS by echoing the sentinel ({@link echoesSentinelFirst}; the
 * decoder marks such an exec `submitOnSentinel`). A command that merely
 * prints the sentinel by accident (`cat` of a file holding it) never ends an
 * episode, and a participant of another dialect is never surprised.
 * When the marked command exits 0 with the sentinel as its stdout's first
 * line, the episode ends `final` with the rest of stdout as the output;
 * otherwise its result is sent back like any other command's.
 */

/** mini-swe-agent's submission sentinel. */
export const SUBMIT_SENTINEL = "COMPLETE_TASK_AND_SUBMIT_FINAL_OUTPUT";

/** `echo SENTINEL`, `echo "SENTINEL"` or `echo 'SENTINEL'` first, then the end, `&&`, `;`, `|` or a newline. */
const ECHO_FIRST = new RegExp(`^\\s*echo\\s+(["']?)${SUBMIT_SENTINEL}\\1[ \\t]*(?:$|&&|;|\\||\\n)`);

/** True when `command` starts by echoing the sentinel (see the module note). */
export function echoesSentinelFirst(command: string): boolean {
  return ECHO_FIRST.test(command);
}

/**
 * The submission in a command's stdout: everything after the first line when the command exited 0
 * and that first line (after leading whitespace) is the sentinel, else undefined.
 */
export function submissionFromOutput(stdout: string, exitCode: number | null): string | undefined {
  if (exitCode !== 0) return undefined;
  const text = stdout.trimStart();
  const newline = text.indexOf("\n");
  const first = newline === -1 ? text : text.slice(0, newline);
  if (first.trim() !== SUBMIT_SENTINEL) return undefined;
  return newline === -1 ? "" : text.slice(newline + 1);
}
