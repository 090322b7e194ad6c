/**
 * The cancellation discipline of one child, apart from spawning it (execa's
 * `kill.js`): the first termination reason is kept (`reason ??= ...`);
 * SIGTERM, then SIGKILL after a named grace (at once with a grace of 0); the
 * kill timer is unref'd and cleared when the child is gone. When the child is
 * only a client of the work (a `docker exec` client: killing it does not stop
 * what it started), `stopWork` is awaited first and the signals follow.
 */
import type { TerminationReason } from "./outcome.js";
import { STOP_WORK_WAIT_MS } from "./grace.js";

/**
 * Stops the work a child drives elsewhere (e.g. `docker kill`); its failure does not stop the signals, and
 * the signals follow after {@link STOP_WORK_WAIT_MS} even when it has not settled.
 */
export type StopWork = (reason: TerminationReason) => Promise<unknown>;

export class Terminator {
  /** The first reason given, null until terminate() is called. */
  reason: TerminationReason | null = null;
  /** SIGKILL was sent. */
  forced = false;
  /** The grace of the termination under way (the default until one starts), ms. */
  graceInEffect: number;
  private killTimer: NodeJS.Timeout | undefined;
  private started = false;
  private gone = false;

  /** `send` signals the child (or its group); `defaultGraceMs` applies when terminate() gets none. */
  constructor(
    private readonly send: (signal: NodeJS.Signals) => void,
    private readonly defaultGraceMs: number,
    private readonly stopWork?: StopWork,
  ) {
    this.graceInEffect = defaultGraceMs;
  }

  /** Record `reason` (first one wins) and start TERM → grace → KILL once; later calls only lose their reason. */
  terminate(reason: TerminationReason, graceMs = this.defaultGraceMs): void {
    this.reason ??= reason;
    if (this.started) return;
    this.started = true;
    this.graceInEffect = graceMs;
    if (this.stopWork) {
      let bound: NodeJS.Timeout | undefined;
      const waited = new Promise((resolve) => {
        bound = setTimeout(resolve, STOP_WORK_WAIT_MS);
        bound.unref();
      });
      void Promise.race([this.stopWork(reason).catch(() => undefined), waited]).finally(() => {
        clearTimeout(bound);
        this.signal(graceMs);
      });
    } else {
      this.signal(graceMs);
    }
  }

  /** SIGKILL now (also used when leftovers outlive their grace). */
  forceKill(): void {
    this.forced = true;
    clearTimeout(this.killTimer);
    this.send("SIGKILL");
  }

  /** The child is gone: drop a pending SIGKILL. */
  clear(): void {
    clearTimeout(this.killTimer);
    this.killTimer = undefined;
    this.gone = true;
  }

  private signal(graceMs: number): void {
    if (this.gone) return;
    if (graceMs <= 0) return this.forceKill();
    this.send("SIGTERM");
    this.killTimer = setTimeout(() => this.forceKill(), graceMs);
    this.killTimer.unref();
  }
}
