/** Copy a child's output to a stream line by line with a `[name] ` prefix (no partial lines interleaved). */
import type { Readable, Writable } from "node:stream";

/** Pipe `source` into `sink`, each line prefixed; a trailing partial line is flushed at end. */
export function prefixLines(source: Readable, sink: Writable, prefix: string): void {
  let pending = "";
  source.setEncoding("utf8");
  source.on("data", (chunk: string) => {
    pending += chunk;
    const lines = pending.split("\n");
    pending = lines.pop() ?? "";
    if (lines.length > 0) sink.write(lines.map((l) => `${prefix}${l}\n`).join(""));
  });
  source.on("end", () => {
    if (pending !== "") sink.write(`${prefix}${pending}\n`);
    pending = "";
  });
  // A closed sink must not crash the manager; the child's own pipe error is handled by the child.
  source.on("error", () => {});
}
