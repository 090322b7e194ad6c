/**
 * Keeps the last `cap` bytes written to a stream and counts them all, so a
 * program printing gigabytes costs us at most `cap` bytes of memory.
 */
export class OutputTail {
  private chunks: Buffer[] = [];
  private kept = 0;
  /** Total bytes seen. */
  total = 0;
  constructor(readonly cap: number) {}

  /** Add a chunk; returns true once the total exceeds the cap. */
  push(chunk: Buffer): boolean {
    this.total += chunk.length;
    this.chunks.push(chunk);
    this.kept += chunk.length;
    while (this.kept - (this.chunks[0]?.length ?? 0) >= this.cap && this.chunks.length > 1) {
      this.kept -= this.chunks.shift()!.length;
    }
    return this.total > this.cap;
  }

  /** The retained tail (at most `cap` bytes), decoded as UTF-8. */
  text(): string {
    const all = Buffer.concat(this.chunks);
    return all.subarray(Math.max(0, all.length - this.cap)).toString("utf8");
  }
}
