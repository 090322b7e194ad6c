/**
 * A run's two ways to stop. The caller's signal (SIGTERM, stdin closed) makes
 * the run `interrupted`: no new item, the checkpoint written, exit 143. An
 * infrastructure failure (the first one is kept) stops the items too but ends
 * the run with status `error`. Items see both on {@link RunStops.itemSignal}.
 */
import type { InfrastructureError } from "../util/infrastructure-error.js";

export class RunStops {
  /** The infrastructure failure that stopped the run, set once (no further item starts). */
  stoppedBy: InfrastructureError | null;
  private readonly interrupt = new AbortController();
  private readonly infrastructure = new AbortController();
  /** Aborted by either stop. */
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
    this.itemSignal = AbortSignal.any([this.interrupt.signal, this.infrastructure.signal]);
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

  /** Stop following the caller's signal. */
  dispose(): void {
    this.outer.removeEventListener("abort", this.onOuterAbort);
  }
}
