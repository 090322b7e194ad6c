/**
 * Git's own background work, off for every git step the harness runs: the
 * automatic garbage collection some commands start when loose objects pile
 * up (detached: it goes on after the command has returned, holding
 * `gc.pid`, and the next step fails with "gc is already running") and the
 * automatic maintenance of newer git. Passed as `-c` on every call, which
 * every git since 1.7 reads, and written into the config of the
 * repositories the harness creates, so a git of any age in any image does
 * nothing behind a step's back. A git that does not know a key ignores it.
 */

/** The settings, as `key value` pairs. */
export const NO_BACKGROUND_GIT: ReadonlyArray<readonly [key: string, value: string]> = [
  ["gc.auto", "0"],
  ["gc.autoDetach", "false"],
  ["maintenance.auto", "false"],
];

/** The `-c key=value` arguments that go before a git subcommand. */
export const NO_BACKGROUND_GIT_ARGS: readonly string[] = NO_BACKGROUND_GIT.flatMap(([k, v]) => ["-c", `${k}=${v}`]);

/**
 * A bash function, the first line of every harness script run in an environment: each `git` of the script
 * gets the settings (`command git` is the program on PATH).
 */
export const GIT_SHELL_FUNCTION = `git() { command git ${NO_BACKGROUND_GIT_ARGS.join(" ")} "$@"; }`;

/** Bash lines writing the settings into the current repository's config (a repository the harness made). */
export const GIT_REPO_CONFIG_LINES: readonly string[] = NO_BACKGROUND_GIT.map(([k, v]) => `git config ${k} ${v}`);
