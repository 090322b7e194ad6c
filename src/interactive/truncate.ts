/**
 * What the participant sees of a command's output: each stream (stdout,
 * stderr) over {@link MAX_STREAM_CHARS} characters is cut to its head and its
 * tail around one marker line that says how many characters were elided and
 * advises a narrower command. mini-swe-agent's rule (the loop behind
 * SWE-bench's "bash only" board) is the model: unbounded output floods the
 * model's context and the gateway between the agents.
 *
 * Characters are Unicode code points (what Python's `len` counts, so the
 * figures match the field's harnesses), and a cut never splits one: a
 * surrogate pair stays whole. Pure: no I/O, no clock.
 */

/** Characters of one stream sent in full; longer output is cut (mini-swe-agent: 10,000). */
export const MAX_STREAM_CHARS = 10_000;

/** A stream as sent: its text and how many characters the cut removed (0 when whole). */
export interface TruncatedText {
  text: string;
  elidedChars: number;
}

function isHighSurrogate(code: number): boolean {
  return code >= 0xd800 && code <= 0xdbff;
}

function isLowSurrogate(code: number): boolean {
  return code >= 0xdc00 && code <= 0xdfff;
}

/** Code points in `text` (a lone surrogate counts as one). */
export function codePointLength(text: string): number {
  let n = 0;
  for (let i = 0; i < text.length; i++) {
    if (isHighSurrogate(text.charCodeAt(i)) && i + 1 < text.length && isLowSurrogate(text.charCodeAt(i + 1))) i++;
    n++;
  }
  return n;
}

/** UTF-16 index just past the first `count` code points of `text`. */
function indexAfterCodePoints(text: string, count: number): number {
  let i = 0;
  for (let n = 0; n < count && i < text.length; n++) {
    i += isHighSurrogate(text.charCodeAt(i)) && i + 1 < text.length && isLowSurrogate(text.charCodeAt(i + 1)) ? 2 : 1;
  }
  return i;
}

/** UTF-16 index where the last `count` code points of `text` begin. */
function indexOfLastCodePoints(text: string, count: number): number {
  let i = text.length;
  for (let n = 0; n < count && i > 0; n++) {
    i -= i >= 2 && isLowSurrogate(text.charCodeAt(i - 1)) && isHighSurrogate(text.charCodeAt(i - 2)) ? 2 : 1;
  }
  return i;
}

/** The marker line between head and tail. */
export function elisionMarker(elidedChars: number, maxChars: number = MAX_STREAM_CHARS): string {
  return (
    `[... ${elidedChars} characters elided: the output was over ${maxChars} characters; ` +
    `narrow the command (grep, head, tail, sed -n, wc) to see the part you need ...]`
  );
}

/**
 * `text` whole when it has at most `maxChars` code points, else its first and last
 * `maxChars / 2` code points (head gets the odd one) joined by the marker on a line of its own.
 */
export function truncateStream(text: string, maxChars: number = MAX_STREAM_CHARS): TruncatedText {
  // Fast path: a string of at most maxChars UTF-16 units has at most maxChars code points.
  if (text.length <= maxChars) return { text, elidedChars: 0 };
  const total = codePointLength(text);
  if (total <= maxChars) return { text, elidedChars: 0 };
  const tailChars = Math.floor(maxChars / 2);
  const headChars = maxChars - tailChars;
  const head = text.slice(0, indexAfterCodePoints(text, headChars));
  const tail = text.slice(indexOfLastCodePoints(text, tailChars));
  const elidedChars = total - headChars - tailChars;
  return { text: `${head}\n${elisionMarker(elidedChars, maxChars)}\n${tail}`, elidedChars };
}
