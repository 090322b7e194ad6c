/**
 * The green agent's bounded line of assessments: at most `maxConcurrent`
 * run and `maxQueued` wait; a new assessment beyond that is answered at once
 * with a JSON-RPC error (nothing is created, so nothing is left behind).
 */
import { JsonRpcTransportError } from "@a2a-js/sdk/errors";

/**
 * JSON-RPC error code of "queue full". JSON-RPC 2.0 §5.1 leaves -32000..-32099
 * to the server; A2A (v0.3.0 §8.2) defines no "busy" error, and -32603 would
 * read as our bug. The message says the limit and the setting.
 */
export const QUEUE_FULL_CODE = -32000;

export interface AdmissionState {
  /** Assessments known to the executor (running, queued, being validated). */
  inFlight(): number;
  maxConcurrent: number;
  maxQueued: number;
}

/** Whether one more assessment fits. */
export function hasRoom(s: AdmissionState): boolean {
  return s.inFlight() < s.maxConcurrent + s.maxQueued;
}

/** The refusal text (also used by the executor's own check for a request that raced past this one). */
export function queueFullMessage(s: AdmissionState): string {
  return (
    `Green agent busy: ${s.inFlight()} assessment(s) running or queued, the limit is ${s.maxConcurrent} running ` +
    `(GREEN_MAX_CONCURRENT_TASKS) + ${s.maxQueued} queued (GREEN_MAX_QUEUED_TASKS); retry later`
  );
}

/** The `admitNewTask` hook for the A2A app: throws the queue-full JSON-RPC error when there is no room. */
export function admitNewTask(s: AdmissionState): () => void {
  return () => {
    if (hasRoom(s)) return;
    throw new JsonRpcTransportError({
      jsonrpc: "2.0",
      id: null,
      error: { code: QUEUE_FULL_CODE, message: queueFullMessage(s) },
    });
  };
}
