/**
 * While the runner is quiet, send a status at least every `intervalMs`:
 * AgentBeats clients time out after 300 s without an event.
 */

/** Default heartbeat interval, ms (well inside AgentBeats' 300 s client timeout). */
export const DEFAULT_HEARTBEAT_MS = 30_000;

export class Heartbeat {
  private timer: NodeJS.Timeout | undefined;
  private lastActivity = Date.now();

  constructor(
    private readonly intervalMs: number,
    private readonly beat: (quietMs: number) => void,
  ) {}

  start(): void {
    this.lastActivity = Date.now();
    this.schedule();
  }

  /** Something was sent: the quiet period restarts. */
  touch(): void {
    this.lastActivity = Date.now();
    if (this.timer) this.schedule();
  }

  stop(): void {
    if (this.timer) clearTimeout(this.timer);
    this.timer = undefined;
  }

  private schedule(): void {
    if (this.timer) clearTimeout(this.timer);
    this.timer = setTimeout(() => {
      this.timer = undefined;
      const quiet = Date.now() - this.lastActivity;
      this.lastActivity = Date.now();
      this.schedule();
      this.beat(quiet);
    }, this.intervalMs);
    this.timer.unref();
  }
}
