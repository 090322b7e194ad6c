/**
 * The participant's reply as it came over the wire, kept for the record: the
 * body of each POST response read through the capped reader (reply-limit.ts)
 * while a recording is open, with its HTTP status, content type and encoding.
 * The body is the bytes the reader passed on (decoded of any
 * `Content-Encoding`, as the cap counts them), at most the reply cap, with
 * their sha256 and count; `complete` is false when the read stopped early (the
 * cap, the depth limit, an abort).
 *
 * A recording is scoped to one call ({@link recordingWire}: an
 * AsyncLocalStorage), so one shared client can serve concurrent episodes and
 * each episode gets the bytes of its own send. Nothing is kept outside a
 * recording. The card is a GET and never recorded.
 */
import { AsyncLocalStorage } from "node:async_hooks";
import { createHash, type Hash } from "node:crypto";

/** One response body as read. */
export interface WireReply {
  status: number;
  /** The `Content-Type` header as sent ("" when none). */
  contentType: string;
  /** The `Content-Encoding` header as sent ("" when none); `body` is decoded of it. */
  contentEncoding: string;
  body: Buffer;
  /** sha256 of `body`, hex. */
  sha256: string;
  /** False when the read stopped before the body's end (cap, depth limit, abort, reset). */
  complete: boolean;
}

/** The bodies read during one recording, in order. */
export class WireRecorder {
  readonly replies: WireReply[] = [];

  /** The last body read (the reply to the last request), if any. */
  last(): WireReply | undefined {
    return this.replies.at(-1);
  }
}

/** What the capped reader feeds as a body streams in. */
export interface WireTap {
  add(chunk: Uint8Array): void;
  end(complete: boolean): void;
}

const scope = new AsyncLocalStorage<WireRecorder>();

/** Run `fn` with `recorder` collecting every POST response body the capped reader reads on its behalf. */
export function recordingWire<T>(recorder: WireRecorder, fn: () => Promise<T>): Promise<T> {
  return scope.run(recorder, fn);
}

/** A tap for a response to a request of `method`, when a recording is open (POST only). */
export function wireTap(method: string, res: Response): WireTap | undefined {
  const recorder = scope.getStore();
  if (!recorder || method.toUpperCase() !== "POST") return undefined;
  const chunks: Buffer[] = [];
  const hash: Hash = createHash("sha256");
  let ended = false;
  return {
    add(chunk) {
      const b = Buffer.from(chunk.buffer, chunk.byteOffset, chunk.byteLength);
      chunks.push(Buffer.from(b));
      hash.update(b);
    },
    end(complete) {
      if (ended) return;
      ended = true;
      recorder.replies.push({
        status: res.status,
        contentType: res.headers.get("content-type") ?? "",
        contentEncoding: res.headers.get("content-encoding") ?? "",
        body: Buffer.concat(chunks),
        sha256: hash.digest("hex"),
        complete,
      });
    },
  };
}
