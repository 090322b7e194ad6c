/**
 * Run `worker` over `items` with at most `concurrency` in flight. Stops
 * starting new items once `signal` is aborted; items already started finish
 * (their worker sees the same signal).
 */
export async function runPool<T>(
  items: readonly T[],
  concurrency: number,
  signal: AbortSignal,
  worker: (item: T, index: number) => Promise<void>,
): Promise<void> {
  let next = 0;
  const lanes = Array.from({ length: Math.max(1, Math.min(concurrency, items.length)) }, async () => {
    while (!signal.aborted && next < items.length) {
      const index = next++;
      await worker(items[index] as T, index);
    }
  });
  await Promise.all(lanes);
}
