import { followAbort } from "../util/abort-fan-out.js";

/** A counting semaphore: at most `limit` tasks run at once, the rest wait in FIFO order. */
export class Limiter {
  private active = 0;
  private readonly queue: Array<() => void> = [];
  constructor(readonly limit: number) {}

  async run<T>(task: () => Promise<T>): Promise<T> {
    if (this.active >= this.limit) await new Promise<void>((r) => this.queue.push(r));
    this.active++;
    try {
      return await task();
    } finally {
      this.active--;
      this.queue.shift()?.();
    }
  }
}

/**
 * One sandbox job under `limiter`, cancellable by the caller's `signal` and by the backend's close():
 * the job gets its own AbortController, registered in `running` while it is queued or runs. A job
 * aborted before its turn comes does not start (`canceled()` is returned instead). However many jobs
 * share `signal`, it carries one abort listener, gone when the last of them ends.
 */
export async function runCancellable<T>(
  limiter: Limiter,
  running: Set<AbortController>,
  signal: AbortSignal | undefined,
  canceled: () => T,
  job: (signal: AbortSignal) => Promise<T>,
): Promise<T> {
  const ac = new AbortController();
  // One listener on the shared signal for all its jobs, however many are queued (see abort-fan-out).
  const unfollow = followAbort(signal, () => ac.abort());
  running.add(ac);
  try {
    return await limiter.run(() => (ac.signal.aborted ? Promise.resolve(canceled()) : job(ac.signal)));
  } finally {
    unfollow();
    running.delete(ac);
  }
}
