/**
 * Per-context episode state of an interactive purple, bounded: each turn of
 * an episode is a new A2A task in the same contextId, so the purple keeps
 * contextId → episode between tasks, and a green (or anyone who can reach the
 * purple) could otherwise make that map grow without limit. At most
 * `maxContexts` episodes are kept; one idle for `idleMs` is dropped; when the
 * store is full the least recently used idle episode makes room, and when
 * every episode is mid-turn a new one is refused. Expiry is swept on access,
 * so the store holds no timer.
 */
import { BenchError } from "../../util/errors.js";

/** Episodes kept at once (one per green conversation; a green runs a handful in parallel). */
export const DEFAULT_MAX_CONTEXTS = 256;
/** An episode with no turn for this long is dropped, ms (a turn waits on the green's command, 300 s at most). */
export const DEFAULT_IDLE_MS = 30 * 60 * 1000;

export type EpisodeStoreErrorCode = "E_EPISODES_FULL" | "E_EPISODE_BUSY";

export class EpisodeStoreError extends BenchError {
  declare readonly code: EpisodeStoreErrorCode;
  constructor(code: EpisodeStoreErrorCode, message: string) {
    super(code, message);
  }
}

export interface EpisodeStoreOptions {
  /** Default {@link DEFAULT_MAX_CONTEXTS}. */
  maxContexts?: number;
  /** Default {@link DEFAULT_IDLE_MS}. */
  idleMs?: number;
  /** Clock, ms (tests). */
  now?: () => number;
}

interface Entry<S> {
  state: S;
  lastUsed: number;
  busy: boolean;
}

export class EpisodeStore<S> {
  private readonly entries = new Map<string, Entry<S>>();
  private readonly maxContexts: number;
  private readonly idleMs: number;
  private readonly now: () => number;

  constructor(options: EpisodeStoreOptions = {}) {
    this.maxContexts = options.maxContexts ?? DEFAULT_MAX_CONTEXTS;
    this.idleMs = options.idleMs ?? DEFAULT_IDLE_MS;
    this.now = options.now ?? Date.now;
    if (!Number.isSafeInteger(this.maxContexts) || this.maxContexts < 1)
      throw new RangeError(`maxContexts must be a positive integer, got ${this.maxContexts}`);
    if (!(this.idleMs > 0)) throw new RangeError(`idleMs must be positive, got ${this.idleMs}`);
  }

  /** Episodes held now (after dropping the expired). */
  get size(): number {
    this.sweep();
    return this.entries.size;
  }

  /**
   * Start a turn of the episode in `contextId`: its state, marked busy until
   * {@link release}; undefined when there is none (never started, ended, or
   * expired). Throws E_EPISODE_BUSY when a turn of it is already running.
   */
  acquire(contextId: string): S | undefined {
    this.sweep();
    const entry = this.entries.get(contextId);
    if (!entry) return undefined;
    if (entry.busy)
      throw new EpisodeStoreError("E_EPISODE_BUSY", `a turn of the episode in context ${contextId} is still running`);
    entry.busy = true;
    entry.lastUsed = this.now();
    return entry.state;
  }

  /**
   * Begin a new episode in `contextId` (replacing an idle one there), marked
   * busy until {@link release}. Throws E_EPISODE_BUSY when that context is
   * mid-turn, E_EPISODES_FULL when the store is full of running turns.
   */
  begin(contextId: string, state: S): void {
    this.sweep();
    const old = this.entries.get(contextId);
    if (old?.busy)
      throw new EpisodeStoreError("E_EPISODE_BUSY", `a turn of the episode in context ${contextId} is still running`);
    this.entries.delete(contextId);
    if (this.entries.size >= this.maxContexts) this.evictOne();
    this.entries.set(contextId, { state, lastUsed: this.now(), busy: true });
  }

  /** End a turn; `keep: false` ends the episode too (its `final`, or a failure). */
  release(contextId: string, keep: boolean): void {
    const entry = this.entries.get(contextId);
    if (!entry) return;
    if (!keep) {
      this.entries.delete(contextId);
      return;
    }
    entry.busy = false;
    entry.lastUsed = this.now();
  }

  private sweep(): void {
    const cutoff = this.now() - this.idleMs;
    for (const [id, entry] of this.entries) if (!entry.busy && entry.lastUsed <= cutoff) this.entries.delete(id);
  }

  private evictOne(): void {
    let oldest: [string, number] | undefined;
    for (const [id, entry] of this.entries) {
      if (!entry.busy && (oldest === undefined || entry.lastUsed < oldest[1])) oldest = [id, entry.lastUsed];
    }
    if (oldest === undefined)
      throw new EpisodeStoreError("E_EPISODES_FULL", `${this.maxContexts} episodes are mid-turn; no room for another`);
    this.entries.delete(oldest[0]);
  }
}
