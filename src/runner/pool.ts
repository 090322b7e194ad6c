/**
 * Run `worker` over `items` with at most `concurrency` in flight. Stops
 * starting new items once `signal` is aborted; items already started finish
 * (their worker sees the same signal). A worker that throws stops new items
 * too; the ones in flight finish, then its error is thrown.
 */
export async function runPool<T>(
  items: readonly T[],
  concurrency: number,
  signal: AbortSignal,
  worker: (item: T, index: number) => Promise<void>,
): Promise<void> {
  let next = 0;
  let failed = false;
  const lanes = Array.from({ length: Math.max(1, Math.min(concurrency, items.length)) }, async () => {
    while (!signal.aborted && !failed && next < items.length) {
      const index = next++;
      try {
        await worker(items[index] as T, index);
      } catch (err) {
        failed = true;
        throw err;
      }
    }
  });
  // Settle every lane before reporting a failure: the caller cleans up after
  // this returns, and must not do so under a worker still running.
  const settled = await Promise.allSettled(lanes);
  const rejected = settled.find((s): s is PromiseRejectedResult => s.status === "rejected");
  if (rejected) throw rejected.reason;
}
