/**
 * smol-toml returns plain values without source positions, so validation
 * messages find a key's line by scanning the source text: track the current
 * table header (`[a.b]`, `[[a]]` with its occurrence index) and look for
 * `key =` inside it. Best effort: dotted keys and inline tables resolve to the
 * nearest enclosing line that can be found.
 */

/** One `[table]` / `[[array]]` section of a TOML document. */
interface Section {
  /** Header path, e.g. ["agents"]; [] for the root table. */
  path: string[];
  /** Occurrence index for `[[array]]` headers, else undefined. */
  index: number | undefined;
  /** 1-based line of the header (0 for the root table). */
  headerLine: number;
  /** 1-based line range of the body (inclusive start, exclusive end). */
  start: number;
  end: number;
}

const HEADER = /^\s*(\[\[?)\s*([^\]]+?)\s*\]\]?\s*(#.*)?$/;
const KEY = /^\s*("(?:[^"\\]|\\.)*"|'[^']*'|[A-Za-z0-9_-]+)\s*(?:\.|=)/;

function unquote(key: string): string {
  if ((key.startsWith('"') && key.endsWith('"')) || (key.startsWith("'") && key.endsWith("'"))) return key.slice(1, -1);
  return key;
}

function splitHeader(text: string): string[] {
  return text.split(".").map((p) => unquote(p.trim()));
}

function sections(lines: string[]): Section[] {
  const out: Section[] = [{ path: [], index: undefined, headerLine: 0, start: 1, end: lines.length + 1 }];
  const counts = new Map<string, number>();
  lines.forEach((line, i) => {
    const m = HEADER.exec(line);
    if (!m || m[1] === undefined || m[2] === undefined) return;
    const lineNo = i + 1;
    const prev = out[out.length - 1];
    if (prev) prev.end = lineNo;
    const path = splitHeader(m[2]);
    let index: number | undefined;
    if (m[1] === "[[") {
      const key = path.join(".");
      index = counts.get(key) ?? 0;
      counts.set(key, index + 1);
    }
    out.push({ path, index, headerLine: lineNo, start: lineNo + 1, end: lines.length + 1 });
  });
  return out;
}

function findKeyLine(lines: string[], section: Section, key: string): number | undefined {
  for (let n = section.start; n < section.end; n++) {
    const m = KEY.exec(lines[n - 1] ?? "");
    if (m?.[1] !== undefined && unquote(m[1]) === key) return n;
  }
  return undefined;
}

/**
 * 1-based line of the value at a JSON-pointer-like path (`["agents", "1",
 * "agent_port"]`) in TOML source; for a path that does not exist (a missing
 * key) the line of the enclosing table's header. Returns 1 when nothing
 * better is known.
 */
export function lineOfPath(source: string, path: readonly string[]): number {
  const lines = source.split(/\r?\n/);
  const all = sections(lines);
  // Longest header that is a prefix of `path` (array headers consume an index segment).
  let best: { section: Section; consumed: number } | undefined;
  for (const s of all) {
    let i = 0;
    let ok = true;
    for (const part of s.path) {
      if (path[i] !== part) {
        ok = false;
        break;
      }
      i++;
    }
    if (!ok) continue;
    if (s.index !== undefined) {
      if (path[i] !== String(s.index)) continue;
      i++;
    }
    if (!best || i > best.consumed) best = { section: s, consumed: i };
  }
  if (!best) return 1;
  const rest = path.slice(best.consumed);
  const first = rest[0];
  if (first === undefined) return Math.max(best.section.headerLine, 1);
  const keyLine = findKeyLine(lines, best.section, first);
  if (keyLine !== undefined) return keyLine;
  return Math.max(best.section.headerLine, 1);
}

/** Split an Ajv instancePath (`/agents/1/agent_port`) into its segments. */
export function pointerSegments(pointer: string): string[] {
  if (pointer === "" || pointer === "/") return [];
  return pointer
    .split("/")
    .slice(1)
    .map((s) => s.replace(/~1/g, "/").replace(/~0/g, "~"));
}
