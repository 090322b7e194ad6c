/**
 * What happens to a child's stdout or stderr. A capture never lets memory grow
 * with the child's output except in `all` mode, which is for trusted tools
 * whose whole answer we need (git).
 */
import type { Readable } from "node:stream";
import { OutputTail } from "./output-tail.js";
import { splitLines, DEFAULT_MAX_LINE } from "./line-splitter.js";

export type Capture =
  /** Not opened at all (`stdio: "ignore"`). */
  | "ignore"
  /** A pipe the caller reads itself from `handle.child.stdout`; not waited for. */
  | "pipe"
  /** Keep everything, decoded as UTF-8 at the end. */
  | { all: true }
  /** Keep the last `tail` bytes; with `stopWhenFull`, stop the child (reason "output") once more was written. */
  | { tail: number; stopWhenFull?: boolean }
  /** Hand every line to `onLine` (a line over `maxLine`, default 64 KiB, is cut). */
  | { lines: (line: string) => void; maxLine?: number };

/** A capture attached to its stream. */
export interface CaptureSink {
  /** Resolves when the stream has ended (or failed); immediately for "ignore" and "pipe". */
  readonly done: Promise<void>;
  /** What was kept ("" for lines, pipe and ignore). */
  text(): string;
}

const NOTHING: CaptureSink = { done: Promise.resolve(), text: () => "" };

function streamEnd(stream: Readable): Promise<void> {
  return new Promise((resolve) => {
    stream.once("end", resolve);
    stream.once("close", resolve);
    stream.once("error", () => resolve());
  });
}

/** Attach `capture` to `stream`; `onOverflow` is called when a `stopWhenFull` tail overflows. */
export function attachCapture(stream: Readable | null, capture: Capture, onOverflow: () => void): CaptureSink {
  if (stream === null || capture === "ignore" || capture === "pipe") return NOTHING;
  if ("lines" in capture) {
    return { done: splitLines(stream, capture.lines, capture.maxLine ?? DEFAULT_MAX_LINE), text: () => "" };
  }
  if ("all" in capture) {
    const chunks: Buffer[] = [];
    stream.on("data", (c: Buffer) => chunks.push(c));
    return { done: streamEnd(stream), text: () => Buffer.concat(chunks).toString("utf8") };
  }
  const tail = new OutputTail(capture.tail);
  const stop = capture.stopWhenFull === true;
  stream.on("data", (c: Buffer) => {
    if (tail.push(c) && stop) onOverflow();
  });
  return { done: streamEnd(stream), text: () => tail.text() };
}

/** The `stdio` entry for a capture. */
export function stdioFor(capture: Capture): "ignore" | "pipe" {
  return capture === "ignore" ? "ignore" : "pipe";
}
