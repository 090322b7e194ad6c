/**
 * The SPARC 2.0 plan's pass rule, reproduced exactly: a case passes when the
 * output, trimmed, equals `expectedOutput` trimmed, or when stdout contains
 * `expectedOutput` trimmed. The plan compared the E2B "main result" text for
 * the first half; programs run here have no notebook result, so stdout serves
 * both halves (the second half subsumes the first, as it did in the plan for
 * any program whose result text was also printed).
 *
 * Consequences kept on purpose, for compatibility: an empty `expectedOutput`
 * passes everything; the exit status is not consulted. One deliberate
 * departure, made in execute-case.ts and not here: the run must also carry a
 * verified pass proof (the program ran to its end: no crash, exit or kill
 * after printing the text), so printing the answer and bailing out is
 * `failed` (`model_exit_before_end`), not passed.
 */
export function planPasses(stdout: string, expectedOutput: string): boolean {
  const expected = expectedOutput.trim();
  return stdout.trim() === expected || stdout.includes(expected);
}
