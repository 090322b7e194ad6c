/**
 * One command in a running container over the Engine API (engine-api.ts):
 * exec create, exec start on a hijacked stream (frames demultiplexed by
 * exec-frames.ts into bounded tails), exec inspect for the exit code — what
 * `docker exec` does, without starting the CLI.
 *
 * Outcomes, the CLI path's (docker-environment.ts) in one flat record:
 * - the engine cannot be reached, or its stream is not the framed protocol:
 *   `infraError` (ours, never the command's);
 * - the engine refuses the exec (no such container, container not running,
 *   the runtime cannot start the process): the command never ran, exit code
 *   null, the engine's message as its output — what the CLI printed;
 * - the limit or the caller's abort: `stop` is called (the container is
 *   killed: ending our stream would not stop the command), exit code null.
 */
import { OutputTail } from "../../process/index.js";
import { engineRequest, engineUpgrade, EngineUnreachableError, type EngineAnswer } from "./engine-api.js";
import { FrameDemuxer } from "./exec-frames.js";

/** Inspections of a finished exec before its exit code is taken as unknown (the engine records it as the stream ends). */
const INSPECT_TRIES = 20;
const INSPECT_PAUSE_MS = 5;

export interface ApiExecOptions {
  timeoutMs: number;
  signal?: AbortSignal;
  /** Bytes kept of the output (each stream's when `separate`). */
  maxOutputBytes: number;
  /** Keep stderr apart (`stderr` of the result) instead of interleaving it into `output`. */
  separate: boolean;
  /** Stop the command for good (kill its container); called once, on the timeout or the abort. */
  stop: (why: "timeout" | "cancel") => Promise<unknown>;
}

export interface ApiExecResult {
  output: string;
  stderr?: string;
  exitCode: number | null;
  timedOut: boolean;
  isCanceled: boolean;
  durationMs: number;
  infraError?: string;
}

const pause = (ms: number) => new Promise((r) => setTimeout(r, ms));
const refused = (what: string, a: EngineAnswer) => `${what}: the engine answered ${a.status}: ${a.message}`;

/** The finished exec's exit code, or the engine's refusal as a message. */
async function inspectExit(socketPath: string, execId: string): Promise<number | string> {
  for (let i = 0; i < INSPECT_TRIES; i++) {
    const inspected = await engineRequest(socketPath, "GET", `/exec/${execId}/json`);
    if (inspected.status !== 200) return refused("exec inspect", inspected);
    const state = inspected.body as { Running?: unknown; ExitCode?: unknown };
    if (state.Running === false && typeof state.ExitCode === "number") return state.ExitCode;
    await pause(INSPECT_PAUSE_MS);
  }
  return `exec inspect: the engine reported no exit code within ${INSPECT_TRIES} inspections`;
}

export async function apiExec(
  socketPath: string,
  containerId: string,
  argv: readonly string[],
  o: ApiExecOptions,
): Promise<ApiExecResult> {
  const t0 = performance.now();
  const out = new OutputTail(o.maxOutputBytes);
  const err = o.separate ? new OutputTail(o.maxOutputBytes) : out;
  const result = (r: { exitCode: number | null; timedOut?: boolean; isCanceled?: boolean; infraError?: string }) => ({
    output: out.text(),
    ...(o.separate ? { stderr: err.text() } : {}),
    exitCode: r.exitCode,
    timedOut: r.timedOut ?? false,
    isCanceled: r.isCanceled ?? false,
    durationMs: performance.now() - t0,
    ...(r.infraError !== undefined ? { infraError: r.infraError } : {}),
  });
  /** The engine's refusal as the command's own output (it never ran). */
  const never = (message: string) => {
    err.push(Buffer.from(`${message}\n`));
    return result({ exitCode: null });
  };

  let reason: "timeout" | "cancel" | null = null;
  let stopped: Promise<unknown> = Promise.resolve();
  let onStop: () => void = () => undefined;
  const stop = (why: "timeout" | "cancel") => {
    if (reason !== null) return;
    reason = why;
    stopped = o.stop(why).catch(() => undefined);
    onStop();
  };
  const timer = setTimeout(() => stop("timeout"), o.timeoutMs);
  const onAbort = () => stop("cancel");
  if (o.signal?.aborted) onAbort();
  else o.signal?.addEventListener("abort", onAbort, { once: true });
  const ended = () => result({ exitCode: null, timedOut: reason === "timeout", isCanceled: reason === "cancel" });
  try {
    if (reason !== null) return (await stopped, ended());
    const created = await engineRequest(socketPath, "POST", `/containers/${encodeURIComponent(containerId)}/exec`, {
      AttachStdin: false,
      AttachStdout: true,
      AttachStderr: true,
      Tty: false,
      Cmd: argv,
    });
    const execId = (created.body as { Id?: unknown } | null)?.Id;
    if (created.status !== 201 || typeof execId !== "string") return never(refused("exec create", created));
    if (reason !== null) return (await stopped, ended());
    const started = await engineUpgrade(socketPath, `/exec/${execId}/start`, { Detach: false, Tty: false });
    if (!("socket" in started)) return never(refused("exec start", started));
    const { socket, head } = started;
    const demux = new FrameDemuxer((stream, bytes) => (stream === "stderr" ? err : out).push(bytes));
    const done = new Promise<void>((resolve) => {
      socket.on("data", (c: Buffer) => {
        demux.push(c);
        if (demux.malformed !== null) socket.destroy();
      });
      socket.on("close", () => resolve());
      socket.on("error", () => undefined); // the close follows; the exit code says the rest
      onStop = () => void stopped.finally(() => socket.destroy());
      if (reason !== null) onStop();
    });
    if (head.length > 0) demux.push(head);
    socket.resume();
    await done;
    if (reason !== null) return (await stopped, ended());
    if (demux.malformed !== null) return result({ exitCode: null, infraError: demux.malformed });
    const exit = await inspectExit(socketPath, execId);
    return typeof exit === "number" ? result({ exitCode: exit }) : never(exit);
  } catch (e) {
    if (reason !== null) return (await stopped, ended());
    const message = e instanceof EngineUnreachableError ? e.message : `exec over the Engine API: ${String(e)}`;
    return result({ exitCode: null, infraError: message });
  } finally {
    clearTimeout(timer);
    o.signal?.removeEventListener("abort", onAbort);
  }
}
