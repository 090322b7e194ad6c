/**
 * What happens to a child's stdout or stderr. A capture never lets memory grow
 * with the child's output except in `all` mode, which is for trusted tools
 * whose whole answer we need (git). Every mode that reads the stream counts
 * its bytes, so a cut tail says how much was cut.
 */
import type { Readable } from "node:stream";
import { OutputTail } from "./output-tail.js";
import { LineSplitter, DEFAULT_MAX_LINE } from "./line-splitter.js";
import { checkBytes } from "./options.js";

export type Capture =
  /** Not opened at all (`stdio: "ignore"`). */
  | "ignore"
  /** A pipe the caller reads itself from `handle.child.stdout`; not waited for, not counted. */
  | "pipe"
  /** Keep everything, decoded as UTF-8 at the end. */
  | { all: true }
  /** Keep the last `tail` bytes; with `stopWhenFull`, stop the child (reason "output") once more was written. */
  | { tail: number; stopWhenFull?: boolean }
  /** Hand every line to `onLine` (a line over `maxLine`, default 64 KiB, is cut). */
  | { lines: (line: string) => void; maxLine?: number };

/** Where stderr goes: its own capture, or `"stdout"`: into stdout's capture, in arrival order (a shell's `2>&1`). */
export type StderrCapture = Capture | "stdout";

/** A capture attached to its stream(s). */
export interface CaptureSink {
  /** Resolves when every stream has ended (or failed); immediately for "ignore" and "pipe". */
  readonly done: Promise<void>;
  /** What was kept ("" for lines, pipe and ignore). */
  text(): string;
  /** Bytes read from the stream(s), kept or not (0 for pipe and ignore). */
  bytes(): number;
}

const NOTHING: CaptureSink = { done: Promise.resolve(), text: () => "", bytes: () => 0 };

function streamEnd(stream: Readable): Promise<void> {
  return new Promise((resolve) => {
    stream.once("end", resolve);
    stream.once("close", resolve);
    stream.once("error", () => resolve());
  });
}

/** Throws ProcessOptionError for a capture that cannot work (a tail of 0 bytes...). */
export function checkCapture(name: string, capture: StderrCapture): void {
  if (typeof capture === "object" && "tail" in capture) checkBytes(`${name}.tail`, capture.tail);
  if (typeof capture === "object" && "lines" in capture && capture.maxLine !== undefined)
    checkBytes(`${name}.maxLine`, capture.maxLine);
}

/**
 * Attach `capture` to `streams` (stdout, plus stderr when merged into it);
 * `onOverflow` is called when a `stopWhenFull` tail overflows.
 */
export function attachCapture(
  streams: readonly (Readable | null)[],
  capture: Capture,
  onOverflow: () => void,
): CaptureSink {
  const open = streams.filter((s): s is Readable => s !== null);
  if (open.length === 0 || capture === "ignore" || capture === "pipe") return NOTHING;
  let bytes = 0;
  if ("lines" in capture) {
    // One splitter per stream: two streams' partial lines must not be glued together.
    const ends = open.map((s) => {
      const splitter = new LineSplitter(capture.lines, capture.maxLine ?? DEFAULT_MAX_LINE);
      s.on("data", (c: Buffer) => {
        bytes += c.length;
        splitter.push(c);
      });
      return streamEnd(s).then(() => splitter.end());
    });
    return { done: Promise.all(ends).then(() => undefined), text: () => "", bytes: () => bytes };
  }
  const done = Promise.all(open.map(streamEnd)).then(() => undefined);
  if ("all" in capture) {
    const chunks: Buffer[] = [];
    for (const s of open)
      s.on("data", (c: Buffer) => {
        bytes += c.length;
        chunks.push(c);
      });
    return { done, text: () => Buffer.concat(chunks).toString("utf8"), bytes: () => bytes };
  }
  const tail = new OutputTail(capture.tail);
  const stop = capture.stopWhenFull === true;
  for (const s of open)
    s.on("data", (c: Buffer) => {
      if (tail.push(c) && stop) onOverflow();
    });
  return { done, text: () => tail.text(), bytes: () => tail.total };
}

/** The `stdio` entry for a capture. */
export function stdioFor(capture: StderrCapture): "ignore" | "pipe" {
  return capture === "ignore" ? "ignore" : "pipe";
}
