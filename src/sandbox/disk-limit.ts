/**
 * The disk limit of an environment (`limits.diskBytes`), one mechanism for
 * every backend that measures its environments' disk: the backend says how to
 * measure (bytes written, or why the participant made measuring impossible)
 * and how to end the environment; this module measures every DISK_POLL_MS
 * while a command runs and once after it (awaited by the next call, so it adds
 * nothing to a command's own time), and past the limit ends the environment.
 * A broken limit is the participant's failure (`limitExceeded` on the command
 * and on every later call), never an `infraError`. A measurement that failed
 * for reasons of ours (the measuring tool's own failure) decides nothing.
 */
import type { EnvironmentExecOptions, EnvironmentExecOutcome } from "./environment.js";

/** How often the disk is measured while a command runs, ms (and once after every command). */
export const DISK_POLL_MS = 1000;

/** One measurement: bytes written; `{ hidden }` when the participant kept part of its disk from being measured. */
export type DiskMeasure = number | { hidden: string } | undefined;

export interface DiskLimitBackend {
  /** Measure the environment's disk; undefined when the measurement failed on our side. */
  measure(): Promise<DiskMeasure>;
  /** End the environment with `why` (the broken limit). */
  end(why: string): Promise<void>;
  /** Whether the environment already ended (nothing more is measured). */
  ended(): boolean;
}

const mib = (bytes: number) => `${(bytes / (1024 * 1024)).toFixed(1)} MiB`;

/** The message of a broken limit. */
export function diskLimitMessage(m: number | { hidden: string }, limitBytes: number): string {
  return typeof m === "number"
    ? `disk limit: the environment wrote ${mib(m)} to its disk, past its limit of ${mib(limitBytes)} (limits.diskBytes); it was ended`
    : `disk limit: the environment kept part of its disk from being measured (${m.hidden}), so its limit of ${mib(limitBytes)} (limits.diskBytes) cannot be held; it was ended`;
}

export class DiskLimit {
  private over: string | null = null;
  private check: Promise<void> = Promise.resolve();

  constructor(
    private readonly limitBytes: number,
    private readonly backend: DiskLimitBackend,
  ) {}

  /** The broken limit once the measurement after the last command is done; null when none. */
  async problem(): Promise<string | null> {
    await this.check;
    return this.over;
  }

  private async measure(): Promise<void> {
    if (this.backend.ended()) return;
    const m = await this.backend.measure();
    if (m === undefined || (typeof m === "number" && m <= this.limitBytes) || this.backend.ended()) return;
    this.over = diskLimitMessage(m, this.limitBytes);
    await this.backend.end(this.over);
  }

  /** A command refused or stopped for the limit: the message is its output too (a step's error shows it). */
  private limited(o: EnvironmentExecOptions, ran?: EnvironmentExecOutcome): EnvironmentExecOutcome {
    const note = `${this.over!}\n`;
    const separate = o.streams === "separate";
    return {
      output: separate ? (ran?.output ?? "") : (ran?.output ?? "") + note,
      ...(separate ? { stderr: (ran?.stderr ?? "") + note } : {}),
      exitCode: null,
      timedOut: false,
      isCanceled: false,
      durationMs: ran?.durationMs ?? 0,
      limitExceeded: this.over!,
    };
  }

  /** Run one command under the limit (see the module note). */
  async around(o: EnvironmentExecOptions, run: () => Promise<EnvironmentExecOutcome>): Promise<EnvironmentExecOutcome> {
    await this.check;
    if (this.over !== null) return this.limited(o);
    const measuring: { p: Promise<void> | null } = { p: null };
    const poll = setInterval(() => {
      measuring.p ??= this.measure().finally(() => (measuring.p = null));
    }, DISK_POLL_MS);
    try {
      const r = await run();
      return this.over !== null ? this.limited(o, r) : r;
    } finally {
      clearInterval(poll);
      const inFlight = measuring.p;
      this.check = (async () => {
        // Started once the caller has the command's outcome: starting a measurement (a du spawned, an
        // engine call) blocks this thread for a moment, which must not be the command's latency.
        await new Promise<void>((resolve) => setImmediate(resolve));
        await inFlight;
        await this.measure();
      })();
    }
  }
}
