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
