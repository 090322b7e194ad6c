/**
 * A run's three ways to stop. The caller's signal (SIGTERM, stdin closed) makes
 * the run `interrupted`: no new item, the checkpoint written, exit 143. An
 * infrastructure failure (the first one is kept) stops the items too but ends
 * the run with status `error`. The time budget running out (`time_budget_seconds`)
 * stops the items and the run finishes with what it judged, `partial`. Items see
 * all three on {@link RunStops.itemSignal}.
 */
import type { InfrastructureError } from "../util/infrastructure-error.js";

export class RunStops {
  /** The infrastructure failure that stopped the run, set once (no further item starts). */
  stoppedBy: InfrastructureError | null;
  private readonly interrupt = new AbortController();
  private readonly infrastructure = new AbortController();
  private readonly budget = new AbortController();
  /** Aborted by any stop. */
  readonly itemSignal: AbortSignal;
  private readonly onOuterAbort = (): void => this.interrupt.abort(this.outer.reason);

  /** `outer`: the caller's signal; `initial`: an infrastructure failure known before the first item. */
  constructor(
    private readonly outer: AbortSignal,
    initial: InfrastructureError | null,
  ) {
    this.stoppedBy = initial;
    if (outer.aborted) this.interrupt.abort(outer.reason);
    else outer.addEventListener("abort", this.onOuterAbort, { once: true });
    this.itemSignal = AbortSignal.any([this.interrupt.signal, this.infrastructure.signal, this.budget.signal]);
  }

  /** Aborted by the caller's stop only. */
  get interruptSignal(): AbortSignal {
    return this.interrupt.signal;
  }

  get interrupted(): boolean {
    return this.interrupt.signal.aborted;
  }

  /** Stop the run for an infrastructure failure (the first one is the run's reason). */
  stopFor(err: InfrastructureError): void {
    this.stoppedBy ??= err;
    this.infrastructure.abort(err);
  }

  /** Whether the time budget ran out (the run ends `partial` unless something else stopped it). */
  get budgetExhausted(): boolean {
    return this.budget.signal.aborted;
  }

  /** The time budget ran out: no new item, the items in flight cancelled. */
  exhaustBudget(): void {
    this.budget.abort(new Error("time budget exhausted"));
  }

  /** Stop following the caller's signal. */
  dispose(): void {
    this.outer.removeEventListener("abort", this.onOuterAbort);
  }
}
