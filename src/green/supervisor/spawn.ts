/**
 * Start a runner in its own process group and supervise it to the end, on the
 * shared process layer (src/process/).
 *
 * - stdout is split into lines: `A2A_EVENT:` lines go to `onEvent`, every other
 *   line (stdout and stderr) to a ring buffer whose tail ends in the outcome.
 * - the lifeline: fd 3 (named in env A2A_BENCH_LIFELINE_FD) is a pipe we
 *   never write; if the green agent dies, even by SIGKILL, the kernel closes it
 *   and the runner sees EOF there (our built-in runner exits; src/process/lifeline.ts).
 *   The runner's stdin is a pipe of the same kind, for external programs that
 *   watch stdin instead (an arbitrary command may watch neither — that is the
 *   limit of this mechanism); our runner is indifferent to its stdin.
 * - terminate(): SIGTERM to the group, SIGKILL after the grace period; the
 *   first reason wins; leftovers of the group are swept when the runner exits.
 */
import { RingBuffer } from "../../util/ring-buffer.js";
import { parseRunnerLine, type RunnerEvent } from "../../runner/protocol.js";
import { startChild, type RunnerOutcome, type TerminationReason } from "../../process/index.js";

/** Lines of runner output kept for the bundle's `runner_output_tail` (smi_bench keeps 200). */
export const OUTPUT_TAIL_LINES = 200;

export interface SpawnRunnerOptions {
  command: string;
  args: string[];
  cwd: string;
  env: NodeJS.ProcessEnv;
  /** A parsed `A2A_EVENT:` line. */
  onEvent?: (event: RunnerEvent) => void;
  /** Any line of output (events excluded), stdout or stderr. */
  onOutput?: (line: string) => void;
  /** Whole-run time limit, ms; none by default. */
  timeoutMs?: number;
  /** SIGTERM → SIGKILL grace when the timeout fires, ms (default: the process layer's DEFAULT_GRACE_MS, 5 s). */
  graceMs?: number;
}

export interface RunnerHandle {
  /** Process id (== process group id); undefined if it could not start. */
  readonly pid: number | undefined;
  /** Resolves once the runner and its whole group are gone. Never rejects. */
  readonly done: Promise<RunnerOutcome>;
  /** Terminate the group: SIGTERM, then SIGKILL after `graceMs`. Resolves with the outcome. */
  terminate(reason: TerminationReason, graceMs?: number): Promise<RunnerOutcome>;
  /** Whether the runner is still running. */
  readonly running: boolean;
}

export function spawnRunner(options: SpawnRunnerOptions): RunnerHandle {
  const tail = new RingBuffer<string>(OUTPUT_TAIL_LINES);
  const output = (line: string) => {
    tail.push(line);
    options.onOutput?.(line);
  };
  const onStdoutLine = (line: string) => {
    const parsed = parseRunnerLine(line);
    if (parsed.kind === "event") options.onEvent?.(parsed.event);
    else if (parsed.kind === "bad-event") output(`${line} [ignored: ${parsed.reason}]`);
    else output(line);
  };
  const child = startChild({
    file: options.command,
    args: options.args,
    cwd: options.cwd,
    env: options.env,
    stdin: "lifeline",
    lifeline: true,
    stdout: { lines: onStdoutLine },
    stderr: { lines: output },
    ...(options.timeoutMs !== undefined ? { timeoutMs: options.timeoutMs } : {}),
    ...(options.graceMs !== undefined ? { graceMs: options.graceMs } : {}),
  });
  const done: Promise<RunnerOutcome> = child.done.then(
    ({ stdout: _o, stderr: _e, stdoutBytes: _ob, stderrBytes: _eb, outputLimitExceeded: _l, ...rest }) => ({
      ...rest,
      outputTail: tail.toArray(),
    }),
  );
  return {
    pid: child.pid,
    done,
    terminate: (reason, graceMs) => child.terminate(reason, graceMs).then(() => done),
    get running() {
      return child.running;
    },
  };
}
