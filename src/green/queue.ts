/**
 * At most N assessments run at once (GREEN_MAX_CONCURRENT_TASKS, default 1);
 * the rest wait in FIFO order. A waiter can leave the line (cancel).
 */
import { BenchError } from "../util/errors.js";

interface Waiter {
  resolve: (release: () => void) => void;
  reject: (err: Error) => void;
}

export class TaskQueue {
  private active = 0;
  private readonly waiting: Waiter[] = [];

  constructor(readonly maxConcurrent: number) {
    if (!Number.isInteger(maxConcurrent) || maxConcurrent < 1)
      throw new RangeError("maxConcurrent must be a positive integer");
  }

  get running(): number {
    return this.active;
  }

  get queued(): number {
    return this.waiting.length;
  }

  /** Whether acquire() would have to wait. */
  get full(): boolean {
    return this.active >= this.maxConcurrent;
  }

  /**
   * Wait for a slot; resolves with its release function (call exactly once).
   * Rejects with E_DEQUEUED if `signal` aborts while waiting.
   */
  acquire(signal?: AbortSignal): Promise<() => void> {
    return new Promise((resolve, reject) => {
      if (signal?.aborted) return reject(new BenchError("E_DEQUEUED", "left the queue"));
      if (this.active < this.maxConcurrent) {
        this.active++;
        return resolve(this.releaser());
      }
      const waiter: Waiter = { resolve, reject };
      this.waiting.push(waiter);
      signal?.addEventListener(
        "abort",
        () => {
          const i = this.waiting.indexOf(waiter);
          if (i !== -1) {
            this.waiting.splice(i, 1);
            reject(new BenchError("E_DEQUEUED", "left the queue"));
          }
        },
        { once: true },
      );
    });
  }

  private releaser(): () => void {
    let released = false;
    return () => {
      if (released) return;
      released = true;
      const next = this.waiting.shift();
      if (next) next.resolve(this.releaser());
      else this.active--;
    };
  }
}
