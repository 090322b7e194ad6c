/**
 * What a child reads on stdin. `lifeline` and `pipe` keep a pipe open: the
 * child sees EOF when we die, even by SIGKILL (the kernel closes our end),
 * which is how a runner or a keepalive container learns its owner is gone.
 */
import type { Writable } from "node:stream";

export type StdinMode =
  /** /dev/null-like: not opened. */
  | "ignore"
  /** An open pipe we never write (EOF when we die). */
  | "lifeline"
  /** An open pipe the caller writes through `handle.stdin` (a line protocol; EOF when we die). */
  | "pipe"
  /** Written, then closed. */
  | { input: string | Buffer };

/** The `stdio` entry for a stdin mode. */
export function stdinStdio(mode: StdinMode): "ignore" | "pipe" {
  return mode === "ignore" ? "ignore" : "pipe";
}

/**
 * Prepare the child's end of stdin: write and close an input; for `pipe`
 * (and `lifeline`, to close it early) return the stream the caller holds. A child that closes stdin early makes
 * our writes fail with EPIPE: that is its business (its exit tells the rest).
 */
export function attachStdin(stream: Writable | null, mode: StdinMode): Writable | null {
  if (stream === null) return null;
  stream.on("error", () => {});
  if (typeof mode === "object") {
    stream.end(mode.input);
    return null;
  }
  return stream; // "pipe" and "lifeline" (its owner may close it early)
}
