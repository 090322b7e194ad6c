/**
 * How many items a run keeps in flight, and how many of them may use the
 * sandbox at once. Why two bounds: a HumanEval item is one participant round
 * trip then a few milliseconds of sandbox work; with `concurrency` lanes doing
 * ask → score in turn, the cores idled during every round trip. Items that
 * mostly wait on the participant get `participant_concurrency` lanes while a
 * gate keeps sandbox calls at `concurrency` — the same sandbox load as before.
 */
import { Limiter } from "../sandbox/concurrency.js";
import type { Sandbox } from "../sandbox/types.js";
import type { BenchmarkDefinition, BenchmarkItem } from "./benchmark.js";
import type { RunOptions } from "./options.js";

export interface LanePlan {
  /** Items evaluated at once (pool lanes). */
  items: number;
  /** Sandbox calls (exec/execMany) in flight at once, or null when `items` already bounds them. */
  sandboxCalls: number | null;
}

/** The lane plan for `def` with `options` (see {@link BenchmarkDefinition.inFlight}). */
export function planLanes(
  def: BenchmarkDefinition<BenchmarkItem>,
  options: RunOptions,
  needsParticipant: boolean,
): LanePlan {
  const slots = options.concurrency;
  // An interactive item holds its environment for the whole episode: `concurrency` bounds the items.
  if (def.inFlight !== "participant" || !needsParticipant || options.interaction === "interactive")
    return { items: slots, sandboxCalls: null };
  const items = options.participant_concurrency;
  return items > slots ? { items, sandboxCalls: slots } : { items, sandboxCalls: null };
}

/**
 * `sandbox` with at most `limit` exec/execMany calls in flight; the rest wait
 * in FIFO order. The local backend bounds its programs itself; the E2B backend
 * sends each call as one batch request, so without this gate more lanes would
 * mean more batches running at once in the remote sandbox.
 */
export function gateSandbox(sandbox: Sandbox, limit: number): Sandbox {
  const gate = new Limiter(limit);
  return {
    backend: sandbox.backend,
    isolation: sandbox.isolation,
    warnings: sandbox.warnings,
    capabilities: sandbox.capabilities,
    // Environments live for a whole item: their opening is not an exec call to gate.
    ...(sandbox.openEnvironment ? { openEnvironment: sandbox.openEnvironment.bind(sandbox) } : {}),
    exec: (req, signal) => gate.run(() => sandbox.exec(req, signal)),
    execMany: (reqs, signal) => gate.run(() => sandbox.execMany(reqs, signal)),
    warmUp: (prep) => sandbox.warmUp?.(prep),
    hasPythonModule: (name) => sandbox.hasPythonModule?.(name) ?? false,
    close: () => sandbox.close(),
  };
}
