/**
 * One progress bar on a terminal that other output can share: every line
 * written through {@link TerminalBar.log} (log lines, status messages) is
 * printed above the bar, which is then redrawn — the two never write over
 * each other. Built on cli-progress's MultiBar, whose `log()` buffers the
 * text until its next redraw; `log()` here redraws at once, so lines appear in
 * order and none is lost when the bar stops.
 */
import type { Writable } from "node:stream";
import cliProgress from "cli-progress";

export interface TerminalBarOptions {
  /** The format of the bar line, cli-progress tokens (`{bar}`, `{value}`, `{total}`, `{eta_formatted}`) and payload keys. */
  format: string;
}

export class TerminalBar {
  private readonly multi: cliProgress.MultiBar;
  private bar: cliProgress.SingleBar | undefined;
  private stopped = false;

  constructor(
    private readonly out: Writable & { isTTY?: boolean },
    options: TerminalBarOptions,
  ) {
    const format = options.format;
    this.multi = new cliProgress.MultiBar(
      {
        stream: out,
        // The bar line stops one column short of the width: a line filling the last column leaves
        // the cursor in the terminal's pending-wrap state, where the erase that follows the bar
        // would take its last character.
        format: (opts, params, payload) =>
          cliProgress.Format.Formatter({ ...opts, format }, params, payload).slice(0, Math.max(1, params.maxWidth - 1)),
        hideCursor: true,
        clearOnComplete: true, // the bar line goes; the caller prints the final summary in its place
        etaBuffer: 20,
        noTTYOutput: false,
        gracefulExit: false, // the command's own SIGINT handling stops us (close in `finally`)
        fps: 10,
        barsize: 30,
        // Leave the terminal's auto-wrap alone (on). cli-progress's default (false) turns it off while
        // the bar shows (`ESC[?7l`), and the terminal then cuts every line printed above the bar at
        // its width. With true, cli-progress trims the bar line alone to the width (one row, redrawn
        // in place) and log lines wrap whole. (null would mean false: cli-progress merges it away.)
        linewrap: true,
      },
      cliProgress.Presets.shades_classic,
    );
  }

  /** Show the bar (or reset its total). */
  start(total: number, value: number, payload: Record<string, unknown>): void {
    if (this.stopped) return;
    if (this.bar) {
      this.bar.setTotal(total);
      this.bar.update(value, this.fit(payload));
    } else this.bar = this.multi.create(total, value, this.fit(payload));
  }

  update(value: number, payload: Record<string, unknown>): void {
    if (this.stopped || !this.bar) return;
    this.bar.update(value, this.fit(payload));
  }

  /**
   * Shorten a `last` payload so the bar line stays on one row (a wrapped bar
   * line could not be redrawn in place): what is left of the terminal's width
   * after about 70 columns of bar and counters, at least 10.
   */
  private fit(payload: Record<string, unknown>): Record<string, unknown> {
    const last = payload["last"];
    if (typeof last !== "string") return payload;
    const room = Math.max(10, ((this.out as { columns?: number }).columns ?? 80) - 70);
    return last.length <= room ? payload : { ...payload, last: last.slice(0, room - 1) + "…" };
  }

  get active(): boolean {
    return this.bar !== undefined && !this.stopped;
  }

  /**
   * Print `text` (one or more whole lines) above the bar, then draw the bar again below it. The
   * lines are never cut: longer than the terminal is wide, they wrap.
   */
  log(text: string): void {
    const chunk = text.endsWith("\n") ? text : text + "\n";
    if (!this.active) {
      this.out.write(chunk);
      return;
    }
    this.multi.log(chunk);
    this.multi.update(); // flush now: in order with everything else, nothing left in the buffer at stop
    // The flush wrote over the bar's row; cli-progress redraws a bar only when its text changed.
    (this.bar as cliProgress.GenericBar).render(true); // a MultiBar's bar is a GenericBar: render(force)
  }

  /** Remove the bar and restore the cursor; idempotent. Later `log()` writes go straight to the stream. */
  stop(): void {
    if (this.stopped) return;
    this.stopped = true;
    if (this.bar) this.multi.stop();
  }

  /** A log sink (for pino) that prints above the bar. */
  sink(): { write(chunk: string): boolean; isTTY: boolean } {
    return {
      write: (chunk: string) => {
        this.log(chunk);
        return true;
      },
      isTTY: true,
    };
  }
}
