/**
 * E2B runs a command as `/bin/bash -l -c <string>` (envd's process API takes
 * no argv of ours), so an environment's argv becomes one shell line: every
 * word in single quotes, a quote inside one as `'\''` (POSIX sh, 2.2.2:
 * nothing is special between single quotes). No word can end its quoting
 * early, so no word is ever read as shell syntax. A NUL cannot travel in an
 * argument on any Unix, so a word holding one is refused here.
 */
import { SandboxError } from "../errors.js";

/** One shell word that stands for `word` exactly. */
export function shellWord(word: string): string {
  if (word.includes("\0")) throw new SandboxError("E_SANDBOX_OPTIONS", "a command's argument cannot contain NUL");
  return `'${word.replaceAll("'", `'\\''`)}'`;
}

/** The shell line that runs `argv` as is (argv[0] looked up on PATH, as exec does). */
export function argvCommand(argv: readonly string[]): string {
  if (argv.length === 0) throw new SandboxError("E_SANDBOX_OPTIONS", "a command needs at least its program");
  return argv.map(shellWord).join(" ");
}
