/**
 * Tolerant JSONL reading for files another process may still be appending
 * to: a last line without its newline is a write in progress and is skipped
 * (not an error); a bad complete line is counted, not thrown.
 */

export interface JsonlRead {
  records: unknown[];
  /** Complete lines that were not JSON. */
  badLines: number;
  /** The file ended in the middle of a line (a writer is still at work). */
  partialTail: boolean;
}

/** Parse `text` as JSON Lines; see the module note. */
export function parseJsonl(text: string): JsonlRead {
  const records: unknown[] = [];
  let badLines = 0;
  const lastNewline = text.lastIndexOf("\n");
  const complete = lastNewline === -1 ? "" : text.slice(0, lastNewline);
  const tail = lastNewline === -1 ? text : text.slice(lastNewline + 1);
  // A tail that parses is a whole record written without a newline (a hand-made file): keep it.
  let partialTail = false;
  const lines = complete === "" ? [] : complete.split("\n");
  if (tail.trim() !== "") {
    try {
      JSON.parse(tail);
      lines.push(tail);
    } catch {
      partialTail = true;
    }
  }
  for (const raw of lines) {
    const line = raw.trim();
    if (line === "") continue;
    try {
      records.push(JSON.parse(line));
    } catch {
      badLines++;
    }
  }
  return { records, badLines, partialTail };
}
