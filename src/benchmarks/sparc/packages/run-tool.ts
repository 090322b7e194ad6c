/**
 * Run an installer (npm, pip) on the host as a child process with a time
 * limit and cancellation, collecting a bounded output tail, on the shared
 * process layer: the child leads its own process group and the whole group is
 * terminated (npm and pip start helpers of their own), SIGTERM then SIGKILL
 * after the shared DEFAULT_GRACE_MS.
 */
import { runChild, type ProcessOutcome } from "../../../process/index.js";

/** Output kept per stream, bytes. */
const TAIL_BYTES = 8_000;

/** The installer's projection of the process record: tails named as such, `spawnError` only when set. */
export interface ToolOutcome {
  exitCode: number | null;
  signal: string | null;
  timedOut: boolean;
  isCanceled: boolean;
  /** Set when the program could not be started (e.g. ENOENT). */
  spawnError?: string;
  durationMs: number;
  stdoutTail: string;
  stderrTail: string;
}

export interface ToolRequest {
  command: string;
  args: string[];
  cwd?: string;
  env: NodeJS.ProcessEnv;
  /** Wall-clock limit, ms. */
  timeoutMs: number;
  signal?: AbortSignal;
}

function toToolOutcome(o: ProcessOutcome): ToolOutcome {
  return {
    exitCode: o.exitCode,
    signal: o.signal,
    timedOut: o.timedOut,
    isCanceled: o.isCanceled,
    ...(o.spawnError !== null ? { spawnError: o.spawnError } : {}),
    durationMs: o.durationMs,
    stdoutTail: o.stdout,
    stderrTail: o.stderr,
  };
}

/** Run to completion; never rejects (failures are in the outcome). */
export async function runTool(req: ToolRequest): Promise<ToolOutcome> {
  const outcome = await runChild({
    file: req.command,
    args: req.args,
    ...(req.cwd !== undefined ? { cwd: req.cwd } : {}),
    env: req.env,
    stdout: { tail: TAIL_BYTES },
    stderr: { tail: TAIL_BYTES },
    timeoutMs: req.timeoutMs,
    leftovers: "keep",
    ...(req.signal ? { signal: req.signal } : {}),
  });
  return toToolOutcome(outcome);
}
