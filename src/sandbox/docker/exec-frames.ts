/**
 * The Engine API's multiplexed stream (an exec or attach without a TTY):
 * frames of an 8-byte header — stream type (0 stdin, 1 stdout, 2 stderr),
 * three zero bytes, the payload's length as a big-endian uint32 — then the
 * payload. Frames arrive cut anywhere across chunks; this reassembles them
 * and hands each payload to its stream, so stdout and stderr stay apart and
 * each keeps its order.
 */
const HEADER_BYTES = 8;

export type FrameStream = "stdout" | "stderr";

/** Push the socket's chunks in; `onPayload` is called per payload (or part of one) with its stream. */
export class FrameDemuxer {
  private header = Buffer.alloc(HEADER_BYTES);
  private headerFill = 0;
  /** Bytes of the current frame's payload still to come, and its stream. */
  private left = 0;
  private stream: FrameStream | null = null;
  /** Set once a header made no sense (not the framed protocol); nothing more is parsed. */
  malformed: string | null = null;

  constructor(private readonly onPayload: (stream: FrameStream, bytes: Buffer) => void) {}

  push(chunk: Buffer): void {
    let at = 0;
    while (at < chunk.length && this.malformed === null) {
      if (this.left === 0) {
        const take = Math.min(HEADER_BYTES - this.headerFill, chunk.length - at);
        chunk.copy(this.header, this.headerFill, at, at + take);
        this.headerFill += take;
        at += take;
        if (this.headerFill < HEADER_BYTES) return;
        this.headerFill = 0;
        const type = this.header[0];
        if (type !== 0 && type !== 1 && type !== 2) {
          this.malformed = `unknown stream type ${type} in the exec's stream`;
          return;
        }
        this.stream = type === 2 ? "stderr" : "stdout";
        this.left = this.header.readUInt32BE(4);
        continue;
      }
      const take = Math.min(this.left, chunk.length - at);
      this.onPayload(this.stream!, chunk.subarray(at, at + take));
      this.left -= take;
      at += take;
    }
  }

  /** Whether the stream ended between frames (a cut frame means the connection broke). */
  get atBoundary(): boolean {
    return this.left === 0 && this.headerFill === 0;
  }
}
