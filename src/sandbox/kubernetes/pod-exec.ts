/**
 * One command in a pod through the `exec` subresource, with the official client: a WebSocket speaking
 * `v5.channel.k8s.io` (channel 0 stdin, 1 stdout, 2 stderr, 3 the error channel carrying the final
 * Status, 4 resize; v5 adds the close signal that ends stdin alone). stdin is sent whole then closed;
 * stdout and stderr are kept as bounded tails; the exit code is read from the Status: `Success` is 0,
 * `NonZeroExitCode` carries it in `details.causes[reason=ExitCode]`, any other failure means the
 * command never ran (its message is the output, the exit code null).
 *
 * An older server that negotiates v4 or less cannot close stdin without closing the whole stream:
 * refused as `infraError` before anything is sent (Kubernetes ≥ 1.30 speaks v5).
 *
 * The limit, the caller's abort and an output past `stopAbove` call `stop` (the caller deletes the
 * pod: closing our socket would leave the command running), then the socket is closed.
 */
import { Readable, Writable } from "node:stream";
import type { V1Status } from "@kubernetes/client-node";
import { OutputTail } from "../../process/index.js";
import { followAbort } from "../../util/abort-fan-out.js";
import type { KubeCluster } from "./cluster.js";
import { apiMessage } from "./cluster.js";
import { CONTAINER_NAME } from "./manifests.js";

/** The protocol whose close signal lets stdin end while the command runs on. */
export const EXEC_PROTOCOL = "v5.channel.k8s.io";

export type StopReason = "timeout" | "cancel" | "output";

export interface PodExecOptions {
  argv: readonly string[];
  stdin?: string | Buffer;
  timeoutMs: number;
  signal?: AbortSignal;
  /** Bytes kept of stdout, and of stderr (each its own tail unless `interleave`). */
  stdoutBytes: number;
  stderrBytes: number;
  /** One tail for both streams, in arrival order (stdoutBytes). */
  interleave?: boolean;
  /** Stop the command once stdout or stderr has carried more than this many bytes. */
  stopAbove?: number;
  /** End the command for good (delete its pod); called once. */
  stop: (why: StopReason) => Promise<unknown>;
}

export interface PodExecResult {
  stdout: string;
  stderr: string;
  /** Bytes stdout carried in all. */
  stdoutTotal: number;
  exitCode: number | null;
  /** Why we stopped it, or null. */
  stopped: StopReason | null;
  /** The Status of a command that never ran (not a non-zero exit). */
  refused?: string;
  /** The stream failed (not the command): ours. */
  infraError?: string;
  durationMs: number;
}

/** Exit code of a Status from the error channel; a string when it is a failure without one. */
export function exitOf(status: V1Status): number | string {
  if (status.status === "Success") return 0;
  if (status.reason === "NonZeroExitCode") {
    const cause = status.details?.causes?.find((c) => c.reason === "ExitCode");
    const n = Number(cause?.message);
    if (Number.isInteger(n)) return n;
  }
  return status.message ?? `exec failed: ${status.reason ?? "unknown reason"}`;
}

function sink(push: (b: Buffer) => void): Writable {
  return new Writable({
    write(chunk: Buffer, _enc, done) {
      push(chunk);
      done();
    },
  });
}

/** The bounded tails of one exec and the writable streams the client fills. */
function collectors(o: PodExecOptions, onOver: () => void) {
  const out = new OutputTail(o.stdoutBytes);
  const err = o.interleave ? out : new OutputTail(o.stderrBytes);
  const totals = { out: 0, err: 0 };
  const over = () => o.stopAbove !== undefined && (totals.out > o.stopAbove || totals.err > o.stopAbove);
  const stdout = sink((b) => {
    totals.out += b.length;
    out.push(b);
    if (over()) onOver();
  });
  const stderr = sink((b) => {
    totals.err += b.length;
    err.push(b);
    if (over()) onOver();
  });
  return { out, err, totals, stdout, stderr };
}

export async function podExec(cluster: KubeCluster, pod: string, o: PodExecOptions): Promise<PodExecResult> {
  const t0 = performance.now();
  let stopped: StopReason | null = null;
  let stopping: Promise<unknown> = Promise.resolve();
  let closeSocket: () => void = () => undefined;
  let wake: () => void = () => undefined;
  const woken = new Promise<void>((r) => (wake = r));
  const stop = (why: StopReason) => {
    if (stopped !== null) return;
    stopped = why;
    stopping = o.stop(why).catch(() => undefined);
    void stopping.then(() => closeSocket());
    wake();
  };
  const c = collectors(o, () => stop("output"));
  const result = (r: Partial<PodExecResult>): PodExecResult => ({
    stdout: c.out.text(),
    stderr: o.interleave ? "" : c.err.text(),
    stdoutTotal: c.totals.out,
    exitCode: null,
    stopped,
    durationMs: Math.round(performance.now() - t0),
    ...r,
  });
  const timer = setTimeout(() => stop("timeout"), o.timeoutMs);
  const unfollow = followAbort(o.signal, () => stop("cancel"));
  try {
    if (stopped !== null) return (await stopping, result({}));
    let status: V1Status | null = null;
    let statusSeen: () => void = () => undefined;
    const gotStatus = new Promise<void>((r) => (statusSeen = r));
    // stdin is a paused stream: nothing is sent before the protocol is known to be v5.
    const stdin = o.stdin === undefined ? null : new Readable({ read() {} });
    let socket;
    try {
      socket = await cluster.exec.exec(
        cluster.namespace,
        pod,
        CONTAINER_NAME,
        [...o.argv],
        c.stdout,
        c.stderr,
        stdin,
        false,
        (s) => {
          status = s;
          statusSeen();
        },
      );
    } catch (e) {
      if (stopped !== null) return (await stopping, result({}));
      const why = (e as { message?: string }).message ?? apiMessage(e);
      return result({ infraError: `exec in pod ${pod} on ${cluster.server}: ${why}` });
    }
    const ws = socket;
    closeSocket = () => ws.close();
    const closed = new Promise<void>((r) => ws.once("close", () => r()));
    if (ws.protocol !== EXEC_PROTOCOL) {
      ws.close();
      return result({
        infraError: `exec in pod ${pod}: the API server speaks ${ws.protocol || "no subprotocol"}, not ${EXEC_PROTOCOL} (Kubernetes 1.30 or later is needed to close stdin)`,
      });
    }
    if (stdin !== null) {
      stdin.push(o.stdin);
      stdin.push(null);
    }
    if (stopped !== null) closeSocket();
    await Promise.race([gotStatus, closed, woken]);
    if (stopped !== null) return (await stopping, ws.close(), result({}));
    // No Status: the connection or the pod went away under us.
    if (status === null)
      return result({ infraError: `exec in pod ${pod}: the stream ended without the command's status` });
    const exit = exitOf(status);
    return typeof exit === "number" ? result({ exitCode: exit }) : result({ refused: exit });
  } finally {
    clearTimeout(timer);
    unfollow();
  }
}
