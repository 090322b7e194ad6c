/**
 * Split a byte stream into text lines. A line longer than `maxLineBytes` is
 * cut there (and the rest dropped until the next newline) so a runner that
 * floods one giant line cannot grow the green agent's memory without bound.
 */
import { StringDecoder } from "node:string_decoder";
import type { Readable } from "node:stream";

/** Default cap of one line, bytes-ish (UTF-16 code units after decoding): 64 KiB. */
export const DEFAULT_MAX_LINE = 64 * 1024;

export class LineSplitter {
  private buf = "";
  private dropping = false;
  private readonly decoder = new StringDecoder("utf8");

  constructor(
    private readonly onLine: (line: string) => void,
    private readonly maxLine = DEFAULT_MAX_LINE,
  ) {}

  push(chunk: Buffer | string): void {
    let text = typeof chunk === "string" ? chunk : this.decoder.write(chunk);
    while (text.length > 0) {
      const nl = text.indexOf("\n");
      const piece = nl === -1 ? text : text.slice(0, nl);
      text = nl === -1 ? "" : text.slice(nl + 1);
      if (!this.dropping) {
        this.buf += piece;
        if (this.buf.length > this.maxLine) {
          this.emit(this.buf.slice(0, this.maxLine) + " [line truncated]");
          this.buf = "";
          this.dropping = true;
        }
      }
      if (nl !== -1) {
        if (!this.dropping) this.emit(this.buf);
        this.buf = "";
        this.dropping = false;
      }
    }
  }

  /** Flush a final unterminated line. */
  end(): void {
    const rest = this.decoder.end();
    if (rest) this.push(rest);
    if (this.buf.length > 0 && !this.dropping) this.emit(this.buf);
    this.buf = "";
  }

  private emit(line: string): void {
    this.onLine(line.endsWith("\r") ? line.slice(0, -1) : line);
  }
}

/** Feed a readable into a splitter; resolves when the stream ends or closes. */
export function splitLines(
  stream: Readable,
  onLine: (line: string) => void,
  maxLine = DEFAULT_MAX_LINE,
): Promise<void> {
  const splitter = new LineSplitter(onLine, maxLine);
  return new Promise((resolve) => {
    stream.on("data", (c: Buffer) => splitter.push(c));
    const done = () => {
      splitter.end();
      resolve();
    };
    stream.once("end", done);
    stream.once("error", done);
  });
}
