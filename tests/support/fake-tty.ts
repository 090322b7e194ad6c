import { Writable } from "node:stream";

/** A Writable that says it is a terminal and keeps everything written to it. */
export class FakeTty extends Writable {
  readonly isTTY = true;
  columns = 120;
  rows = 40;
  chunks: string[] = [];
  override _write(chunk: Buffer | string, _enc: BufferEncoding, cb: () => void): void {
    this.chunks.push(chunk.toString());
    cb();
  }
  get raw(): string {
    return this.chunks.join("");
  }
  /** The text with ANSI escape sequences removed. */
  get plain(): string {
    return this.raw.replace(/\x1b\[[0-9;?]*[A-Za-z]/g, "");
  }
}

/**
 * What a terminal would show after `raw`: a minimal emulator of the sequences
 * cli-progress and readline use (cursor to column, up/down, clear line, clear
 * to end of line, clear below; `\n` moves to the next row's start as a TTY
 * with onlcr does). Lines are returned without trailing blanks.
 *
 * With `columns`, the screen has that width, as a VT100 does: with auto-wrap on
 * (the default, `ESC[?7h`) a character past the last column goes to the next
 * row's start; with auto-wrap off (`ESC[?7l`) it overwrites the last column, so
 * the rest of a long line is lost.
 */
export function renderScreen(raw: string, columns?: number): string[] {
  const rows: string[][] = [[]];
  let r = 0;
  let c = 0;
  let autoWrap = true;
  const row = (): string[] => (rows[r] ??= []);
  for (let i = 0; i < raw.length; i++) {
    const ch = raw[i]!;
    if (ch === "\x1b" && raw[i + 1] === "[") {
      const m = /^\x1b\[([0-9;?]*)([A-Za-z])/.exec(raw.slice(i));
      if (!m) continue;
      i += m[0].length - 1;
      const n = m[1] === "" || m[1]!.startsWith("?") ? undefined : Number(m[1]);
      switch (m[2]) {
        case "G":
          c = (n ?? 1) - 1;
          break;
        case "A":
          r = Math.max(0, r - (n ?? 1));
          break;
        case "B":
          r += n ?? 1;
          break;
        case "K":
          if (n === 2) rows[r] = [];
          else row().length = Math.min(row().length, c);
          break;
        case "J":
          row().length = Math.min(row().length, c);
          rows.length = r + 1;
          break;
        case "h":
        case "l":
          if (m[1] === "?7") autoWrap = m[2] === "h";
          break; // else cursor show/hide
        default:
          break; // colours
      }
      continue;
    }
    if (ch === "\n") {
      r++;
      c = 0;
      row();
    } else if (ch === "\r") c = 0;
    else {
      if (columns !== undefined && c >= columns) {
        if (autoWrap) {
          r++;
          c = 0;
        } else c = columns - 1;
      }
      const cur = row();
      while (cur.length < c) cur.push(" ");
      cur[c++] = ch;
    }
  }
  return rows.map((cells) => (cells ?? []).join("").trimEnd());
}

/** A Writable that is not a terminal. */
export class FakePipe extends Writable {
  chunks: string[] = [];
  override _write(chunk: Buffer | string, _enc: BufferEncoding, cb: () => void): void {
    this.chunks.push(chunk.toString());
    cb();
  }
  get text(): string {
    return this.chunks.join("");
  }
}
