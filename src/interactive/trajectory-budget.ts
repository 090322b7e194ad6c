/**
 * The bound on an episode's trajectory: every line fits the room it is given,
 * and what is cut to make it fit is recorded, never dropped silently.
 *
 * A line that fits is written as it is. A line that does not has its long
 * texts (every string over {@link KEPT_WHOLE_BYTES}: a reply body, a command,
 * an output, an id the participant chose) cut to their head and tail around a
 * marker, the room shared fairly between them (the short ones whole, the rest
 * an equal share), and one entry per cut text in the line's `elided` list:
 * the field's path, its bytes, the bytes elided and the sha256 of the whole
 * text, so an auditor holding the bytes can prove them. When even that does
 * not fit (the episode's total is spent), the line keeps only its short
 * fields and `line_elided` (the whole line's bytes and sha256). Pure: no I/O.
 */
import { createHash } from "node:crypto";

/** Default largest trajectory of one episode, bytes (the config's `max_trajectory_bytes`). */
export const DEFAULT_MAX_TRAJECTORY_BYTES = 4 * 1024 * 1024;
/** Largest one line may be, bytes (also at most a quarter of the episode's total). */
export const MAX_LINE_BYTES = 1024 * 1024;
/** Strings up to this many bytes are never cut (names, states, ids of sane length, hashes). */
export const KEPT_WHOLE_BYTES = 80;
/**
 * Room kept for each line still to come, bytes: a line reduced to its short fields (at most a few dozen
 * strings of {@link KEPT_WHOLE_BYTES}) and `line_elided` fits in it.
 */
export const LINE_RESERVE_BYTES = 4096;

/** One text cut to fit. */
export interface Elision {
  /** Where it is in the line (`wire.body`, `command.stdout`, `action.output`, …). */
  field: string;
  /** UTF-8 bytes of the whole text. */
  bytes: number;
  /** Bytes left out (between the head and the tail kept). */
  elided_bytes: number;
  /** sha256 of the whole text's UTF-8 bytes, hex. */
  sha256: string;
}

type Json = string | number | boolean | null | Json[] | { [key: string]: Json };

const sha256 = (data: string | Buffer): string => createHash("sha256").update(data).digest("hex");

/** Serialized size of a string value (escapes included, quotes not). */
function jsonBytes(text: string): number {
  return Buffer.byteLength(JSON.stringify(text)) - 2;
}

/** The marker between head and tail. */
export function trajectoryMarker(elidedBytes: number): string {
  return `\n[... ${elidedBytes} bytes elided from the trajectory: see "elided" ...]\n`;
}

/** `text` cut to about `keepBytes` UTF-8 bytes: head + marker + tail, never splitting a character. */
export function cutText(text: string, keepBytes: number): { text: string; elidedBytes: number } {
  const buf = Buffer.from(text, "utf8");
  if (buf.length <= keepBytes) return { text, elidedBytes: 0 };
  const isContinuation = (i: number): boolean => i < buf.length && (buf[i]! & 0xc0) === 0x80;
  let head = Math.ceil(Math.max(0, keepBytes) / 2);
  while (head > 0 && isContinuation(head)) head--;
  let tail = buf.length - Math.floor(Math.max(0, keepBytes) / 2);
  while (tail < buf.length && isContinuation(tail)) tail++;
  const elidedBytes = tail - head;
  return {
    text: buf.subarray(0, head).toString("utf8") + trajectoryMarker(elidedBytes) + buf.subarray(tail).toString("utf8"),
    elidedBytes,
  };
}

interface Leaf {
  path: string;
  text: string;
  size: number;
  set(v: string): void;
}

/** Every string in `value` (a fresh copy) with its path and a setter. */
function leaves(value: Json, path: string, out: Leaf[]): void {
  if (Array.isArray(value)) {
    value.forEach((v, i) => {
      if (typeof v === "string")
        out.push({ path: `${path}[${i}]`, text: v, size: jsonBytes(v), set: (s) => (value[i] = s) });
      else leaves(v, `${path}[${i}]`, out);
    });
  } else if (value !== null && typeof value === "object") {
    for (const [k, v] of Object.entries(value)) {
      const p = path === "" ? k : `${path}.${k}`;
      if (typeof v === "string") out.push({ path: p, text: v, size: jsonBytes(v), set: (s) => (value[k] = s) });
      else leaves(v, p, out);
    }
  }
}

/** Share `room` bytes among `sizes`: each at most its size, the rest an equal share (water-filling). */
function shares(sizes: number[], room: number): number[] {
  const order = sizes.map((s, i) => [s, i] as const).sort((a, b) => a[0] - b[0]);
  const out = new Array<number>(sizes.length).fill(0);
  let left = Math.max(0, room);
  order.forEach(([size, i], n) => {
    const share = Math.floor(left / (order.length - n));
    const kept = Math.min(size, share);
    out[i] = kept;
    left -= kept;
  });
  return out;
}

/** `line` with every long string cut to its share of `room` bytes, and the `elided` entries. */
function cutLine(line: Json, room: number): string {
  const copy = structuredClone(line);
  const long: Leaf[] = [];
  leaves(copy, "", long);
  const cuttable = long.filter((l) => l.size > KEPT_WHOLE_BYTES);
  const keep = shares(
    cuttable.map((l) => l.size),
    room,
  );
  const elided: Elision[] = [];
  cuttable.forEach((leaf, i) => {
    if (keep[i]! >= leaf.size) return;
    // Escapes make a string's serialized size larger than its bytes: scale the share to its UTF-8 bytes.
    const utf8 = Buffer.byteLength(leaf.text);
    const cut = cutText(leaf.text, Math.floor((keep[i]! * utf8) / leaf.size));
    leaf.set(cut.text);
    elided.push({ field: leaf.path, bytes: utf8, elided_bytes: cut.elidedBytes, sha256: sha256(leaf.text) });
  });
  if (elided.length > 0 && copy !== null && typeof copy === "object" && !Array.isArray(copy))
    copy["elided"] = elided as unknown as Json;
  return JSON.stringify(copy);
}

/** `line` with its long strings emptied, and `line_elided` naming the whole line. */
function skeleton(line: Json, full: string): string {
  const copy = structuredClone(line);
  const all: Leaf[] = [];
  leaves(copy, "", all);
  for (const leaf of all) if (leaf.size > KEPT_WHOLE_BYTES) leaf.set("");
  if (copy !== null && typeof copy === "object" && !Array.isArray(copy)) {
    delete copy["elided"];
    copy["line_elided"] = { bytes: Buffer.byteLength(full), sha256: sha256(full) };
  }
  return JSON.stringify(copy);
}

/**
 * `line` as one JSON text of at most `maxBytes` UTF-8 bytes when it can be (see the module note); a line
 * that cannot shrink below its short fields is written as its skeleton whatever `maxBytes` says.
 */
export function fitLine(line: object, maxBytes: number): string {
  const value = line as Json;
  const full = JSON.stringify(value);
  const fullBytes = Buffer.byteLength(full);
  if (fullBytes <= maxBytes) return full;
  // The room for the long strings: the line's size without them, and each cut's marker and entry, set aside.
  const all: Leaf[] = [];
  leaves(structuredClone(value), "", all);
  const longBytes = all.filter((l) => l.size > KEPT_WHOLE_BYTES).reduce((n, l) => n + l.size, 0);
  const longCount = all.filter((l) => l.size > KEPT_WHOLE_BYTES).length;
  const perCut = 260; // marker, and an entry: path, numbers, sha256
  let room = maxBytes - (fullBytes - longBytes) - longCount * perCut - 16;
  for (let attempt = 0; attempt < 6 && room > 0; attempt++) {
    const text = cutLine(value, room);
    const bytes = Buffer.byteLength(text);
    if (bytes <= maxBytes) return text;
    room = Math.floor(room - (bytes - maxBytes) * 1.25) - 64;
  }
  return skeleton(value, full);
}
