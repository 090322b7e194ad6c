/**
 * Running git (and patch) on the host for trusted bookkeeping only: creating
 * worktrees, applying diffs, listing files. Nothing here executes repository
 * code (hooks are disabled); tests run in the sandbox.
 */
import { runChild, type ProcessOutcome } from "../../process/index.js";
import { NO_BACKGROUND_GIT_ARGS } from "./git-background.js";

/** Default limit for one git/patch command, ms. */
export const GIT_TIMEOUT_MS = 60_000;

/**
 * Git's projection of the process record (same shape on success and failure):
 * the whole output is kept (git's answer is its stdout), a start failure is
 * appended to `stderr`.
 */
export interface CommandOutcome {
  exitCode: number | null;
  signal: string | null;
  timedOut: boolean;
  stdout: string;
  stderr: string;
}

function toCommandOutcome(o: ProcessOutcome): CommandOutcome {
  const stderr = o.spawnError === null ? o.stderr : o.stderr + o.spawnError;
  return { exitCode: o.exitCode, signal: o.signal, timedOut: o.timedOut, stdout: o.stdout, stderr };
}

// A fixed identity and dates make the commits we create (sample repos) reproducible,
// and an empty hooks path keeps a repository's hooks from running on the host.
const GIT_ENV: Record<string, string> = {
  GIT_AUTHOR_NAME: "a2a-bench",
  GIT_AUTHOR_EMAIL: "a2a-bench@example.invalid",
  GIT_COMMITTER_NAME: "a2a-bench",
  GIT_COMMITTER_EMAIL: "a2a-bench@example.invalid",
  GIT_CONFIG_NOSYSTEM: "1",
  GIT_TERMINAL_PROMPT: "0",
};

/**
 * Run a command; never rejects for a non-zero exit. On timeout it gets SIGKILL
 * at once (git and patch are trusted and have nothing to clean up). It stays in
 * our process group (`ownGroup: false`): a checkout runs dozens of these, and
 * a group of its own makes each start measurably slower.
 */
export async function runCommand(
  file: string,
  args: string[],
  opts: { cwd: string; input?: string; env?: Record<string, string>; timeoutMs?: number },
): Promise<CommandOutcome> {
  const outcome = await runChild({
    file,
    args,
    cwd: opts.cwd,
    env: {
      PATH: process.env["PATH"] ?? "/usr/bin:/bin",
      HOME: process.env["HOME"] ?? "/tmp",
      ...GIT_ENV,
      ...opts.env,
    },
    stdin: { input: opts.input ?? "" },
    stdout: { all: true },
    stderr: { all: true },
    timeoutMs: opts.timeoutMs ?? GIT_TIMEOUT_MS,
    graceMs: 0,
    ownGroup: false,
  });
  return toCommandOutcome(outcome);
}

/**
 * `git -c core.hooksPath=/dev/null <args>` in `cwd`, with git's background work (automatic gc and
 * maintenance) off: git-background.ts.
 */
export function git(
  cwd: string,
  args: string[],
  opts: { input?: string; env?: Record<string, string>; timeoutMs?: number } = {},
): Promise<CommandOutcome> {
  const settings = ["-c", "core.hooksPath=/dev/null", "-c", "advice.detachedHead=false", ...NO_BACKGROUND_GIT_ARGS];
  return runCommand("git", [...settings, ...args], {
    cwd,
    ...opts,
  });
}

/**
 * A checked-out tree and the git directory that owns it. The tree is handed to
 * untrusted code (the model's patch, the sandboxed tests), which may rewrite
 * or replace its `.git` pointer: git must never discover its repository from
 * inside the tree, or a planted gitdir's config (e.g. `core.fsmonitor`) would
 * run a command on the host. {@link gitIn} names both explicitly.
 */
export interface Tree {
  /** The working tree. */
  path: string;
  /** Its git directory (a worktree's admin dir or a clone's separate git dir), outside the tree. */
  gitDir: string;
}

/** `git` on a {@link Tree}: GIT_DIR and GIT_WORK_TREE given, fsmonitor off, run in the tree. */
export function gitIn(
  tree: Tree,
  args: string[],
  opts: { input?: string; timeoutMs?: number } = {},
): Promise<CommandOutcome> {
  return git(tree.path, ["-c", "core.fsmonitor=false", ...args], {
    ...opts,
    env: { GIT_DIR: tree.gitDir, GIT_WORK_TREE: tree.path },
  });
}

/** Like {@link gitIn} but throws with git's stderr on failure; returns stdout. */
export async function gitInOk(
  tree: Tree,
  args: string[],
  opts: { input?: string; timeoutMs?: number } = {},
): Promise<string> {
  return okOrThrow(args, await gitIn(tree, args, opts));
}

function okOrThrow(args: string[], r: CommandOutcome): string {
  if (r.exitCode !== 0) {
    throw new Error(
      `git ${args.join(" ")} failed (${r.timedOut ? "timed out" : `exit ${r.exitCode}`}): ${r.stderr.trim().slice(-500)}`,
    );
  }
  return r.stdout;
}

/** Like {@link git} but throws with git's stderr on failure; returns stdout. */
export async function gitOk(
  cwd: string,
  args: string[],
  opts: { input?: string; env?: Record<string, string>; timeoutMs?: number } = {},
): Promise<string> {
  return okOrThrow(args, await git(cwd, args, opts));
}
