/**
 * An EpisodeEnvironment on any host that runs an argv and returns its
 * output (the sandbox's `environments` capability has that shape:
 * `Environment.exec(argv, {timeoutMs, signal, maxOutputBytes, streams})`). It
 * is declared here structurally ({@link ArgvHost}) so the loop does not
 * depend on a backend.
 *
 * A host that keeps stderr apart (`separateStreams`: the docker backend's
 * environments, whose Engine API stream frames each stream, and the local
 * backend's, whose server gives each stream a pipe) gets the light
 * wrapper, DIRECT_WRAPPER: POSIX sh around the same `timeout` and group
 * kill, the exit code the exec's own, no marker, temporary file, tail or rm
 * (each of those is a process start in the container per command). A host
 * that interleaves gets the marker wrapper described next.
 *
 * Why a wrapper script: the host's own timeout ENDS the environment, and its
 * output interleaves stdout and stderr. So each command runs as
 * `timeout -k 5 <s> bash -lc <command>` inside a small bash wrapper (the
 * command travels as an argument, never spliced into script text) whose own
 * limit is longer: a command that times out is stopped by `timeout` (exit 124,
 * the environment lives on), its stderr goes to a temporary file printed
 * after a marker line holding a fresh random nonce and the exit code, and the
 * output before the marker is stdout. A command that timed out is stopped with
 * every process of its group (`timeout` signals the group once; a fork bomb
 * outlives that): the group is killed until it is empty. What a command leaves
 * running in the background when it ends by itself lives on (a server it
 * started), bounded by the environment's process cap.
 *
 * A command that exits 124 by itself reads as timed out (as with `timeout` anywhere).
 * The image needs bash, coreutils `timeout` and `mktemp` (every Debian or
 * Ubuntu image has them). A command can read the nonce from /proc and forge
 * the marker; it would only mislead itself about its own output (the score
 * is the environment's state, never this split).
 */
import { randomBytes } from "node:crypto";
import type { CommandOutcome, EpisodeEnvironment } from "./episode-environment.js";

/**
 * What the wrapper needs of a host: run an argv, return its output; never rejects. A host that keeps
 * stderr apart on request says so (`separateStreams`) and then fills `stderr` (`output` is stdout).
 */
export interface ArgvHost {
  readonly separateStreams?: boolean;
  /** Optional: the limit the participant broke, once the host's pending checks are done (Environment.limitProblem). */
  limitProblem?(): Promise<string | null>;
  exec(
    argv: readonly string[],
    options: { timeoutMs: number; signal?: AbortSignal; maxOutputBytes?: number; streams?: "interleaved" | "separate" },
  ): Promise<{
    output: string;
    stderr?: string;
    exitCode: number | null;
    timedOut: boolean;
    durationMs: number;
    infraError?: string;
    limitExceeded?: string;
  }>;
}

export interface ShellEnvironmentOptions {
  /** Directory every command starts in (absolute); default the host's own working directory. */
  workdir?: string;
  /** Bytes of output the host keeps (its tail); default 16 MiB. */
  maxOutputBytes?: number;
}

/** Seconds between `timeout`'s TERM and its KILL. */
export const KILL_AFTER_S = 5;
/** Seconds the host's limit exceeds the command's, so `timeout` always acts first. */
export const HOST_MARGIN_S = 15;
/** Bytes of stderr printed back (its tail). */
export const MAX_STDERR_BYTES = 4 * 1024 * 1024;
const DEFAULT_OUTPUT_BYTES = 16 * 1024 * 1024;

/** Exit code of coreutils `timeout` when it stopped the command. */
const TIMEOUT_EXIT = 124;
/** Exit code of `timeout` when the command needed its KILL (128 + 9). */
const KILLED_EXIT = 137;

/**
 * $1 command, $2 seconds, $3 nonce, $4 workdir ("" = stay). Prints stdout, then "\n<nonce> <code>\n",
 * then the tail of stderr. Code 125: the wrapper could not start the command (mktemp or cd failed).
 */
const WRAPPER = [
  'err=$(mktemp) || { printf "\\n%s %d\\n" "$3" 125; echo "mktemp failed"; exit 0; }',
  'if [ -n "$4" ] && ! cd -- "$4" 2>"$err"; then printf "\\n%s %d\\n" "$3" 125; cat -- "$err"; rm -f -- "$err"; exit 0; fi',
  `timeout -k ${KILL_AFTER_S} "$2" bash -lc "$1" </dev/null 2>"$err" &`,
  'pid=$!; wait "$pid"; code=$?',
  // Timed out: `timeout` signalled its process group once and left when the command's shell died; what
  // forked meanwhile (a fork bomb) lives on. Its group is killed until empty (kill is a builtin: no fork needed).
  `if [ "$code" = ${TIMEOUT_EXIT} ] || [ "$code" = ${KILLED_EXIT} ]; then n=0; while [ $n -lt 1000 ] && kill -KILL -- "-$pid" 2>/dev/null; do n=$((n + 1)); done; fi`,
  'printf "\\n%s %d\\n" "$3" "$code"',
  `tail -c ${MAX_STDERR_BYTES} -- "$err"`,
  'rm -f -- "$err"',
].join("\n");

/**
 * The wrapper on a host that keeps stderr apart: no marker, no temporary file. $1 command, $2 seconds,
 * $3 workdir ("" = stay). POSIX sh (dash where /bin/sh is dash: the cheapest shell to start). Exit code:
 * the command's, or 125 when the wrapper could not start it (cd failed; its message on stderr).
 */
const DIRECT_WRAPPER = [
  'if [ -n "$3" ]; then cd -- "$3" || exit 125; fi',
  `timeout -k ${KILL_AFTER_S} "$2" bash -lc "$1" </dev/null &`,
  'pid=$!; wait "$pid"; code=$?',
  `if [ "$code" = ${TIMEOUT_EXIT} ] || [ "$code" = ${KILLED_EXIT} ]; then n=0; while [ $n -lt 1000 ] && kill -s KILL -- "-$pid" 2>/dev/null; do n=$((n + 1)); done; fi`,
  'exit "$code"',
].join("\n");

/** Split the wrapper's output at its marker; undefined when the marker is not there. */
export function splitWrapped(
  output: string,
  nonce: string,
): { stdout: string; stderr: string; exitCode: number } | undefined {
  const at = output.indexOf(`\n${nonce} `);
  if (at === -1) return undefined;
  const lineEnd = output.indexOf("\n", at + 1);
  const codeText = output.slice(at + 1 + nonce.length + 1, lineEnd === -1 ? undefined : lineEnd);
  if (!/^\d+$/.test(codeText)) return undefined;
  return {
    stdout: output.slice(0, at),
    stderr: lineEnd === -1 ? "" : output.slice(lineEnd + 1),
    exitCode: Number(codeText),
  };
}

/** The EpisodeEnvironment running each command through the wrapper on `host` (see the module note). */
export function shellEnvironment(host: ArgvHost, options: ShellEnvironmentOptions = {}): EpisodeEnvironment {
  return {
    run: (command: string, timeoutS: number, signal: AbortSignal): Promise<CommandOutcome> =>
      host.separateStreams === true
        ? runDirect(host, command, timeoutS, signal, options)
        : runMarked(host, command, timeoutS, signal, options),
    ...(host.limitProblem ? { limitProblem: () => host.limitProblem!() } : {}),
  };
}

/** The host ended the environment for a limit the participant broke: what was printed, exit unknown. */
function overLimit(
  out: { output: string; stderr?: string; durationMs: number },
  why: string,
  nonce?: string,
): CommandOutcome {
  const split = nonce === undefined ? undefined : splitWrapped(out.output, nonce);
  return {
    durationMs: out.durationMs,
    exitCode: null,
    stdout: split ? split.stdout : out.output,
    stderr: split ? split.stderr : (out.stderr ?? ""),
    timedOut: false,
    limitExceeded: why,
  };
}

/** One command through the marker wrapper on a host interleaving its output. */
async function runMarked(
  host: ArgvHost,
  command: string,
  timeoutS: number,
  signal: AbortSignal,
  options: ShellEnvironmentOptions,
): Promise<CommandOutcome> {
  const nonce = `@@a2a-bench-exit-${randomBytes(12).toString("hex")}`;
  const argv = ["bash", "-c", WRAPPER, "a2a-bench-command", command, String(timeoutS), nonce, options.workdir ?? ""];
  const out = await host.exec(argv, {
    timeoutMs: (timeoutS + KILL_AFTER_S + HOST_MARGIN_S) * 1000,
    signal,
    maxOutputBytes: options.maxOutputBytes ?? DEFAULT_OUTPUT_BYTES,
  });
  const base = { durationMs: out.durationMs };
  if (out.infraError !== undefined) {
    return { ...base, exitCode: null, stdout: "", stderr: "", timedOut: out.timedOut, infraError: out.infraError };
  }
  if (out.limitExceeded !== undefined) return overLimit(out, out.limitExceeded, nonce);
  const split = splitWrapped(out.output, nonce);
  if (!split) {
    // No marker: the host stopped the wrapper (its timeout, an abort) or kept only the output's tail.
    // What was printed goes back as it is; the command's own fate is unknown (exit code null).
    return { ...base, exitCode: null, stdout: out.output, stderr: "", timedOut: out.timedOut };
  }
  // 124: `timeout` stopped the command; 137 after the limit: it ignored TERM and was killed KILL_AFTER_S later.
  const timedOut =
    split.exitCode === TIMEOUT_EXIT || (split.exitCode === KILLED_EXIT && out.durationMs >= timeoutS * 1000);
  return { ...base, ...split, timedOut };
}

/** One command on a host keeping stderr apart: the exit code is the exec's own, the streams are the host's. */
async function runDirect(
  host: ArgvHost,
  command: string,
  timeoutS: number,
  signal: AbortSignal,
  options: ShellEnvironmentOptions,
): Promise<CommandOutcome> {
  const argv = ["sh", "-c", DIRECT_WRAPPER, "a2a-bench-command", command, String(timeoutS), options.workdir ?? ""];
  const out = await host.exec(argv, {
    timeoutMs: (timeoutS + KILL_AFTER_S + HOST_MARGIN_S) * 1000,
    signal,
    maxOutputBytes: options.maxOutputBytes ?? DEFAULT_OUTPUT_BYTES,
    streams: "separate",
  });
  const base = { durationMs: out.durationMs };
  if (out.infraError !== undefined)
    return { ...base, exitCode: null, stdout: "", stderr: "", timedOut: out.timedOut, infraError: out.infraError };
  if (out.limitExceeded !== undefined) return overLimit(out, out.limitExceeded);
  const stderr = out.stderr ?? "";
  if (out.exitCode === null) return { ...base, exitCode: null, stdout: out.output, stderr, timedOut: out.timedOut };
  const timedOut = out.exitCode === TIMEOUT_EXIT || (out.exitCode === KILLED_EXIT && out.durationMs >= timeoutS * 1000);
  return { ...base, exitCode: out.exitCode, stdout: out.output, stderr, timedOut };
}
