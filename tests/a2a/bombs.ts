/**
 * Hostile bodies for the capped reader's tests: a compression bomb (a body
 * whose bytes decode to far more than are sent), built a chunk at a time so
 * the test itself never holds the decoded size, and JSON nested deep.
 */
import { constants, createBrotliCompress, createGzip, type BrotliCompress, type Gzip } from "node:zlib";

export type Encoding = "gzip" | "br";

/** `prefix` + `fill` repeated to `size` bytes + `suffix`, compressed with `encoding`, never held decoded. */
export async function compressionBomb(
  encoding: Encoding,
  prefix: string,
  size: number,
  suffix: string,
  fill = "a",
): Promise<Buffer> {
  const z: Gzip | BrotliCompress =
    encoding === "gzip"
      ? createGzip({ level: 9 })
      : createBrotliCompress({ params: { [constants.BROTLI_PARAM_QUALITY]: 5 } });
  const out: Buffer[] = [];
  z.on("data", (b: Buffer) => out.push(b));
  const done = new Promise<void>((resolve, reject) => {
    z.on("end", resolve);
    z.on("error", reject);
  });
  const write = (b: Buffer): Promise<void> =>
    new Promise((resolve) => {
      if (z.write(b)) resolve();
      else z.once("drain", resolve);
    });
  await write(Buffer.from(prefix));
  const chunk = Buffer.alloc(1024 * 1024, fill);
  for (let left = size; left > 0; left -= chunk.length)
    await write(left >= chunk.length ? chunk : chunk.subarray(0, left));
  await write(Buffer.from(suffix));
  z.end();
  await done;
  return Buffer.concat(out);
}

/** A JSON array nested `depth` deep: `[[[…]]]`. */
export function deepArray(depth: number): string {
  return "[".repeat(depth) + "]".repeat(depth);
}

/** Peak resident memory growth while `fn` runs, bytes (sampled; a lower bound of the true peak). */
export async function peakRssGrowth<T>(fn: () => Promise<T>): Promise<{ value: T; growth: number }> {
  const before = process.memoryUsage().rss;
  let peak = before;
  const sampler = setInterval(() => (peak = Math.max(peak, process.memoryUsage().rss)), 2);
  try {
    const value = await fn();
    peak = Math.max(peak, process.memoryUsage().rss);
    return { value, growth: peak - before };
  } finally {
    clearInterval(sampler);
  }
}
